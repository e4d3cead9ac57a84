import Foundation
import Hummingbird
import Logging
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// The push endpoints of the stores whose notifications are only hints: Amazon Appstore Real-Time
/// Notifications (over Amazon SNS) and Roku Pay push notifications. Unlike Apple's and Google's,
/// each is processed while the store waits: the transaction is read again at the store and applied
/// before the answer, so a store outage is a non-2xx the store redelivers on. Every notification is
/// kept in the same queue as Apple's and Google's (deduplicated by the store's message id; listed by
/// `souk stores notifications`); a row the route could not settle is retried by the worker too.
///
/// - `POST /commerce/<app>/amazon/notifications` — an SNS message (`Content-Type: text/plain`).
///   `403` unless signed by SNS (certificate only from a `SigningCertURL` matching
///   `amazonSnsCertUrlPattern`); a `SubscriptionConfirmation` is confirmed by fetching its
///   `SubscribeURL`; a `Notification`'s receipt is read again through RVS and applied. `200 {}` once
///   done (also for a seen `MessageId`), `400` not an SNS message or not a notification Souk reads,
///   `404` unknown app, `503` when the certificate, SNS or RVS gives no answer (SNS delivers again).
/// - `POST /commerce/<app>/roku/notifications` — Roku's unauthenticated JSON. The transaction is read
///   again with `validate-transaction` within `rokuPushDeadline` (Roku waits 10 s); only a
///   transaction Roku confirms and that is this app's is acknowledged: `200`, `ApiKey: <this app's
///   partner API key>`, the `responseKey` as the text body. Anything else is `400` (nothing kept,
///   no key), `503` when Roku gives no answer in time (no key; Roku retries).
struct StorePushController<Context: RequestContext> {
    let catalogs: CommerceCatalogCache
    let settings: StoreSettingsProvider
    let notifications: StoreNotificationStore
    let sns: AmazonSNSVerifier?
    let amazon: RereadNotificationHandler?
    let roku: RereadNotificationHandler?
    /// How long a Roku push may wait for `validate-transaction`.
    let rokuDeadline: Duration
    let retry: StoreRetryPolicy
    let now: @Sendable () -> Date
    /// SNS and Roku bodies are a few kilobytes.
    static var maxBody: Int { 256 * 1024 }

    func addRoutes(to router: Router<Context>) {
        router.post("commerce/:app/amazon/notifications") { request, context in try await amazon(request, context) }
        router.post("commerce/:app/roku/notifications") { request, context in try await roku(request, context) }
    }

    func knownApp(_ context: Context) async throws -> String {
        let app = try context.parameters.require("app")
        guard CatalogFile.isValidAppId(app), try await catalogs.state(app: app) != nil else {
            throw Problem(.notFound, "No product catalog for app \(app).")
        }
        return app
    }

    /// The row to process: a new one (held from the worker while the route works on it), or a copy
    /// of one still queued or failed (an earlier delivery met an outage); nil for a copy already settled.
    func pending(_ received: ReceivedStoreNotification) async throws -> StoredStoreNotification? {
        switch try await notifications.receive(received, holdFor: StoreNotificationStore.lease) {
        case .stored(let id):
            return try await notifications.notification(id: id)
        case .duplicate:
            let existing = try await notifications.notification(app: received.app, store: received.store, notificationId: received.notificationId)
            return existing.flatMap { $0.status == .queued || $0.status == .failed ? $0 : nil }
        }
    }

    /// Settles the row with `work`'s outcome; on a failure (a store outage) leaves it to the worker and answers 503.
    func settle(_ row: StoredStoreNotification, logger: Logger, _ work: () async throws -> StoreNotificationOutcome) async throws {
        let metadata: Logger.Metadata = ["app": "\(row.received.app)", "store": "\(row.received.store)",
                                         "notification": "\(row.received.notificationId)", "type": "\(row.received.type)"]
        let outcome: StoreNotificationOutcome
        do {
            outcome = try await work()
        } catch {
            let wait = retry.delay(beforeRetry: row.attempts + 1)
            _ = try? await notifications.backOff(row.id, error: StoreNotificationWorker.describe(error), retryAt: now().addingTimeInterval(wait.timeInterval))
            logger.warning("store notification kept; the store gave no answer", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            throw Problem(.serviceUnavailable, "The store did not answer when asked about this notification; it is kept and will be retried.",
                          retryAfter: max(1, Int(wait.timeInterval.rounded(.up))))
        }
        switch outcome {
        case .processed(let summary): try await notifications.complete(row.id, status: .processed, summary: summary)
        case .ignored(let summary): try await notifications.complete(row.id, status: .ignored, summary: summary)
        case .unmatched(let summary): try await notifications.complete(row.id, status: .unmatched, summary: summary)
        }
        logger.info("store notification processed", metadata: metadata.merging(["outcome": "\(outcome)"]) { $1 })
    }

    static func ok() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }
}
