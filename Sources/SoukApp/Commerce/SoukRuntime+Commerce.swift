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
    /// within the catalog refresh interval), with its sealed credentials read and opened at each
    /// call (`SealedStoreSettings`); nil for an app without a catalog.
    public var storeSettings: StoreSettingsProvider {
        let catalogs = commerceCatalogs
        let sealed = SealedStoreSettings(database: database, keysDir: config.keysDir)
        return { app in
            guard let state = try await catalogs.state(app: app) else { return nil }
            return try await sealed.apply(to: state.catalog.stores ?? CommerceStoreSettings(), app: app)
        }
    }

    /// The verifiers of every store, reading `storeSettings`.
    public func storeVerifiers() throws -> StoreVerifiers {
        try StoreVerifiers.configured(config, settings: storeSettings)
    }
}
