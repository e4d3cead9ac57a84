import Foundation
import Logging
import ServiceLifecycle
import SoukStore

/// Settles purchases whose store verdict did not come in time (`POST transactions` answered 202):
/// every `interval` it claims the due pending purchases one by one (a claim is a lease of
/// `PurchaseStore.pendingLease`, so several processes never verify one purchase at once and a
/// crashed process's claim is taken over) and asks the store again. A store that still does not
/// answer postpones the purchase with back-off (2 s doubling to 5 min): an outage is never a
/// verdict, the purchase waits until the store answers.
public struct PendingPurchaseWorker: PollingWorker {
    package let intake: PurchaseIntakeService
    package let purchases: PurchaseStore
    public let interval: Duration
    /// How long one verification may take here (longer than a request waits).
    package let timeout: Duration
    package let logger: Logger

    public init(intake: PurchaseIntakeService, purchases: PurchaseStore, interval: Duration = .seconds(1),
                timeout: Duration = .seconds(30), logger: Logger) {
        self.intake = intake
        self.purchases = purchases
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
    }

    /// Settles or postpones every pending purchase due now; returns how many were settled.
    @discardableResult
    public func processDue() async -> Int {
        var settled = 0
        while !Task.isCancelled {
            do {
                guard let pending = try await purchases.claimPending() else { return settled }
                if try await intake.retry(pending, timeout: timeout) {
                    settled += 1
                    logger.info("pending purchase settled", metadata: ["payment": "\(pending.paymentId)", "attempt": "\(pending.attempts)"])
                }
            } catch {
                // The database is down or a bug: the claim's lease runs out and the purchase is tried again.
                logger.error("pending purchases cannot be processed now", metadata: ["error": "\(String(reflecting: error))"])
                return settled
            }
        }
        return settled
    }
}
