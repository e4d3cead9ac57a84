import Foundation
import SoukCore
import SoukStore

extension SoukRuntime {
    /// The purchase path with `verifiers` (`StoreVerifiers.configured` in a server); `now` is the
    /// clock of the per-account limit on store look-ups by id alone.
    public func purchaseIntake(verifiers: StoreVerifiers, now: @escaping @Sendable () -> Date = { Date() }) -> PurchaseIntakeService {
        PurchaseIntakeService(purchases: purchases, catalogs: commerceCatalogs, verifiers: verifiers,
                              policy: config.commerce.transferPolicy,
                              timeout: .milliseconds(config.commerce.verifyTimeoutMilliseconds),
                              storeStatus: StoreStatusStore(database: database), accountTokens: accountTokens,
                              lookups: LoginThrottle(database: database, now: now), logger: logger)
    }

    /// Each person's account token per app.
    public var accountTokens: AccountTokenStore { AccountTokenStore(database: database) }

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
