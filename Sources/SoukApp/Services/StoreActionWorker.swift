import Foundation
import Logging
import ServiceLifecycle
import SoukCore
import SoukIntegrations
import SoukStore

/// Takes an action Souk owes a store about a purchase. Idempotent: an action the store already
/// took is success. Throws `StoreFault` when the store did not take it.
public protocol StoreActionPerformer: Sendable {
    var store: CommerceStore { get }
    func perform(_ action: StoreAction) async throws
}

extension GooglePlayStoreVerifier: StoreActionPerformer {
    public func perform(_ action: StoreAction) async throws {
        switch action.kind {
        case .acknowledge:
            try await acknowledge(app: action.app, storeProductId: action.storeProductId, purchaseToken: action.storeReference,
                                  type: action.productType)
        case .consume:
            try await consume(app: action.app, storeProductId: action.storeProductId, purchaseToken: action.storeReference)
        }
    }
}

/// Google Play's acknowledgements and consumptions, from the durable queue in
/// `purchases` (`PurchaseStore.claimStoreActions`): every granted Google purchase is acknowledged
/// (a consumable consumed) by one process, retried with the store back-off while Google is down
/// or refuses, across restarts, until Google's 3-day window has passed — then it is left with its
/// error for the operator (`souk purchases list`; Google refunds such a purchase and says so by RTDN).
public struct StoreActionWorker: PollingWorker {
    /// Google refunds a purchase not acknowledged within this long.
    public static let window: TimeInterval = 3 * 86_400

    package let purchases: PurchaseStore
    package let performers: [CommerceStore: any StoreActionPerformer]
    package let retry: StoreRetryPolicy
    package let storeStatus: StoreStatusStore?
    public let interval: Duration
    package let now: @Sendable () -> Date
    package let logger: Logger

    public init(purchases: PurchaseStore, performers: [any StoreActionPerformer], retry: StoreRetryPolicy, storeStatus: StoreStatusStore?,
                interval: Duration = .seconds(1), now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.purchases = purchases
        var byStore: [CommerceStore: any StoreActionPerformer] = [:]
        for performer in performers { byStore[performer.store] = performer }
        self.performers = byStore
        self.retry = retry
        self.storeStatus = storeStatus
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    @discardableResult
    public func processDue() async -> Int {
        await drain(logger: logger, failure: "store actions cannot be taken now",
                    claim: { try await purchases.claimStoreActions(limit: 20) }, handle: perform)
    }

    /// Takes one claimed action; true when the store took it.
    package func perform(_ action: StoreAction) async -> Bool {
        let metadata: Logger.Metadata = ["app": "\(action.app)", "store": "\(action.store.rawValue)", "payment": "\(action.paymentId)",
                                         "action": "\(action.kind.rawValue)"]
        do {
            guard let performer = performers[action.store] else {
                try await purchases.failStoreAction(action, error: "Souk cannot \(action.kind.rawValue) \(action.store.rawValue) purchases.",
                                                    retryAt: nil)
                return false
            }
            do {
                try await performer.perform(action)
            } catch {
                let reason = (error as? StoreFault)?.description ?? "\(action.store.rawValue) could not be asked: \(type(of: error))"
                if let fault = error as? StoreFault {
                    try? await storeStatus?.recordFault(app: action.app, store: action.store, fault, at: now())
                }
                let delay = retry.delay(beforeRetry: action.attempts)
                var next: Date? = now().addingTimeInterval(delay.timeInterval)
                if let purchased = action.purchaseDate, let due = next, due > purchased.addingTimeInterval(Self.window) {
                    next = nil
                    logger.error("store action given up: the store's window has passed", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
                } else {
                    logger.warning("store action will be retried", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
                }
                try await purchases.failStoreAction(action, error: reason, retryAt: next)
                return false
            }
            try await purchases.completeStoreAction(action)
            try? await storeStatus?.recordAnswer(app: action.app, store: action.store, at: now())
            logger.info("store action taken", metadata: metadata)
            return true
        } catch {
            // The database is down: the claim's lease runs out and the action is taken again.
            logger.error("store action cannot be recorded now", metadata: metadata.merging(["error": "\(String(reflecting: error))"]) { $1 })
            return false
        }
    }
}
