import Foundation
import SoukCore
import SoukStore

extension SoukRuntime {
    /// The purchase path with `verifiers` (`StoreVerifiers.configured` in a server).
    public func purchaseIntake(verifiers: StoreVerifiers) -> PurchaseIntakeService {
        PurchaseIntakeService(purchases: purchases, catalogs: commerceCatalogs, verifiers: verifiers,
                              policy: config.commerce.transferPolicy,
                              timeout: .milliseconds(config.commerce.verifyTimeoutMilliseconds),
                              storeStatus: StoreStatusStore(database: database), logger: logger)
    }

    /// Each app's store settings as its catalog holds them (every process sees `souk stores set`
    /// within the catalog refresh interval); nil for an app without a catalog.
    public var storeSettings: StoreSettingsProvider {
        let catalogs = commerceCatalogs
        return { app in
            guard let state = try await catalogs.state(app: app) else { return nil }
            return state.catalog.stores ?? CommerceStoreSettings()
        }
    }

    /// The verifiers of every store, reading `storeSettings`.
    public func storeVerifiers() throws -> StoreVerifiers {
        try StoreVerifiers.configured(config, settings: storeSettings)
    }
}
