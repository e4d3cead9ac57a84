import Foundation
import Logging
import ServiceLifecycle
import SoukCore
import SoukIntegrations
import SoukStore

/// What processing one notification came to; every case settles the row.
public enum StoreNotificationOutcome: Sendable, Equatable {
    /// Its effect (or none needed, e.g. `TEST`) is recorded.
    case processed(String)
    /// Kept without effect: an unknown type, a notification older than what is recorded.
    case ignored(String)
    /// It names a purchase Souk does not know; listed for the operator, requeued with `requeue`.
    case unmatched(String)
}

/// Turns one stored notification of one store into its effect. A thrown error (a `StoreFault`, an
/// unreachable database) means "try again later": the worker backs the row off, it is never dropped.
public protocol StoreNotificationHandler: Sendable {
    /// `apple_store`, `google_play`, `amazon` or `roku`.
    var store: String { get }
    func handle(_ notification: StoredStoreNotification) async throws -> StoreNotificationOutcome
}

/// The queue behind the notification routes: leases due notifications
/// oldest `signed_date` first (`StoreNotificationStore.claimDue`, safe with several processes on one
/// PostgreSQL), hands each to its store's handler, and settles it. A failure is retried with the
/// store back-off (`storeRetryBaseMs`…`storeRetryMaxMs`, doubling with jitter) until
/// `StoreNotificationStore.maxAttempts`, then marked `failed` and listed — a store outage delays a
/// notification, it never loses it.
public struct StoreNotificationWorker: PollingWorker {
    package let store: StoreNotificationStore
    package let handlers: [String: any StoreNotificationHandler]
    package let retry: StoreRetryPolicy
    public let interval: Duration
    package let now: @Sendable () -> Date
    package let logger: Logger

    public init(store: StoreNotificationStore, handlers: [any StoreNotificationHandler], retry: StoreRetryPolicy,
                interval: Duration = .seconds(1), now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.store = store
        var byStore: [String: any StoreNotificationHandler] = [:]
        for handler in handlers { byStore[handler.store] = handler }
        self.handlers = byStore
        self.retry = retry
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    /// Processes every notification due now; returns how many were settled.
    @discardableResult
    public func processDue() async -> Int {
        var settled = 0
        do {
            while !Task.isCancelled, let notification = try await store.claimDue() {
                if try await process(notification) { settled += 1 }
            }
        } catch {
            // The database is down: claimed rows' leases run out and they are processed again.
            logger.error("store notifications cannot be processed now", metadata: ["error": "\(String(reflecting: error))"])
        }
        return settled
    }

    /// Processes one claimed notification; true when settled, false when backed off.
    package func process(_ notification: StoredStoreNotification) async throws -> Bool {
        let received = notification.received
        let metadata: Logger.Metadata = ["app": "\(received.app)", "store": "\(received.store)",
                                         "notification": "\(received.notificationId)", "type": "\(received.type)"]
        guard let handler = handlers[received.store] else {
            try await backOff(notification, error: "No handler is configured for \(received.store) notifications.", metadata: metadata)
            return false
        }
        let outcome: StoreNotificationOutcome
        do {
            outcome = try await handler.handle(notification)
        } catch {
            try await backOff(notification, error: Self.describe(error), metadata: metadata)
            return false
        }
        switch outcome {
        case .processed(let summary):
            try await store.complete(notification.id, status: .processed, summary: summary)
            logger.info("store notification processed", metadata: metadata.merging(["summary": "\(summary)"]) { $1 })
        case .ignored(let summary):
            try await store.complete(notification.id, status: .ignored, summary: summary)
            logger.notice("store notification ignored", metadata: metadata.merging(["summary": "\(summary)"]) { $1 })
        case .unmatched(let summary):
            try await store.complete(notification.id, status: .unmatched, summary: summary)
            logger.notice("store notification names no known purchase", metadata: metadata.merging(["summary": "\(summary)"]) { $1 })
        }
        return true
    }

    package func backOff(_ notification: StoredStoreNotification, error: String, metadata: Logger.Metadata) async throws {
        let delay = retry.delay(beforeRetry: notification.attempts)
        let seconds = delay.timeInterval
        let status = try await store.backOff(notification.id, error: error, retryAt: now().addingTimeInterval(seconds))
        let level: Logger.Level = status == .failed ? .error : .warning
        logger.log(level: level, "store notification \(status == .failed ? "failed for good" : "will be retried")",
                   metadata: metadata.merging(["error": "\(error)", "attempts": "\(notification.attempts)"]) { $1 })
    }

    /// A failure as a sentence for `last_error` (never a token: store faults and database errors do not carry one).
    package static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
