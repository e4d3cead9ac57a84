import Foundation
import Logging
import ServiceLifecycle
import SoukStore

/// Renews, fails or ends the development processor's membership subscriptions when their period is
/// over (sandbox ones on Apple's accelerated schedule), once a second in each process; every change
/// is one conditional write, so processes sharing PostgreSQL never renew one twice.
public struct MarketplaceRenewalWorker: PollingWorker {
    package let store: MarketplaceSubscriptionStore
    public let interval: Duration
    package let logger: Logger

    public init(store: MarketplaceSubscriptionStore, interval: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    @discardableResult
    public func processDue() async -> Int {
        do {
            let changed = try await store.renewDue()
            if changed > 0 { logger.info("membership subscriptions renewed or ended", metadata: ["count": "\(changed)"]) }
            return changed
        } catch {
            logger.error("membership renewals cannot run now", metadata: ["error": "\(String(reflecting: error))"])
            return 0
        }
    }
}
