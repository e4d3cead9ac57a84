import Foundation
import SoukStore

extension SoukRuntime {
    /// The purchase path with `verifiers` (`StoreVerifiers.configured(config)` in a server).
    public func purchaseIntake(verifiers: StoreVerifiers) -> PurchaseIntakeService {
        PurchaseIntakeService(purchases: purchases, catalogs: commerceCatalogs, verifiers: verifiers,
                              policy: config.commerce.transferPolicy,
                              timeout: .milliseconds(config.commerce.verifyTimeoutMilliseconds), logger: logger)
    }
}
