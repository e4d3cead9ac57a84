import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// What the operator console uses, named one by one: the operations it calls, the stores it reads
/// and the few settings it shows or obeys. One value per server, built from the `SoukRuntime` where
/// the server is assembled; the console holds nothing else.
package struct OperatorConsoleServices: Sendable {
    /// The developer operations' services: apps, packages, catalogs, review, payouts and the
    /// operations the console shares with the developer console and the CLI.
    package let developer: DeveloperServices
    package let people: PeopleOperations
    package let refunds: RefundMarketplaceSale
    package let credentials: StoreCredentialOperations
    package let rotateInstallVerificationKey: RotateInstallVerificationKey
    /// The App Store's and Google Play's operations, through the stores' verifiers.
    package let stores: StoreOperations
    /// The marketplace's name, from its identity (`CatalogStore.marketplaceName`).
    package let marketplaceName: @Sendable () async throws -> String
    package let installVerificationKeys: InstallVerificationKeyring
    package let dailyCounts: DailyCounts
    package let tokens: TokenStore
    /// Where the two-factor secrets' sealing key is.
    package let keysDir: String
    /// The address a password reset link starts with.
    package let publicURL: String
    package let consoleRequiresTwoFactor: Bool
    private let reportingCurrency: String
    private let database: SoukDatabase

    /// `storeVerifiers`: the server's (nil: built from the settings at each use).
    package init(runtime: SoukRuntime, storeVerifiers: StoreVerifiers?, now: @escaping @Sendable () -> Date) {
        developer = DeveloperServices(runtime: runtime, now: now)
        people = PeopleOperations(runtime: runtime, now: now)
        refunds = RefundMarketplaceSale(runtime: runtime, now: now)
        credentials = StoreCredentialOperations(runtime: runtime, now: now)
        rotateInstallVerificationKey = RotateInstallVerificationKey(runtime: runtime)
        stores = StoreOperations(runtime: runtime, verifiers: storeVerifiers, now: now)
        let catalog = runtime.catalog, keys = runtime.keys
        marketplaceName = { try await catalog.marketplaceName(keys: keys) }
        installVerificationKeys = runtime.installVerificationKeys
        dailyCounts = runtime.dailyCounts
        tokens = runtime.tokens
        keysDir = runtime.config.keysDir
        publicURL = runtime.config.publicURL
        consoleRequiresTwoFactor = runtime.config.consoleRequiresTwoFactor
        reportingCurrency = runtime.config.reportingCurrency
        database = runtime.database
    }

    package var now: @Sendable () -> Date { developer.now }
    package var catalog: CatalogStore { developer.catalog }
    package var purchases: PurchaseStore { developer.purchases }
    package var commerceCatalogs: CommerceCatalogCache { developer.commerceCatalogs }
    /// The audit log, its entries at the wall clock's time.
    package var audit: AuditLog { AuditLog(database: database) }
    package var totp: TOTPStore { TOTPStore(database: database, keysDir: keysDir, now: now) }
    package var loginThrottle: LoginThrottle { LoginThrottle(database: database, now: now) }
    package var directory: PeopleDirectory { PeopleDirectory(database: database) }
    package var licenses: LicenseStore { LicenseStore(database: database) }
    package var orders: MarketplaceOrderStore { MarketplaceOrderStore(database: database) }
    package var subscriptions: MarketplaceSubscriptionStore { MarketplaceSubscriptionStore(purchases: purchases) }
    package var grants: EntitlementGrantStore { EntitlementGrantStore(purchases: purchases) }
    package var commerceEvents: CommerceEventStore { CommerceEventStore(database: database) }
    package var webhooks: WebhookStore { WebhookStore(database: database) }
    package var renewalExtensions: AppleRenewalExtensionStore { AppleRenewalExtensionStore(database: database) }
    package var appStoreConnectEvents: AppStoreConnectEventStore { AppStoreConnectEventStore(database: database) }
    package var storeStatus: StoreStatusStore { StoreStatusStore(database: database) }
    package var storeNotifications: StoreNotificationStore { StoreNotificationStore(database: database) }
    package var clients: ClientRegistry { ClientRegistry(database: database, now: now) }
    package var versionReview: VersionReview { VersionReview(database: database, now: now) }
    /// Sales metrics of the apps an actor reaches: every app for staff, an organisation's for its
    /// members and API keys (`DeveloperOwnership`).
    package var metrics: DeveloperMetrics { developer.metrics(reportingCurrency: reportingCurrency) }

    /// The dashboard's figures for the `days` ending at `end`.
    package func dashboardFigures(days: Int, endingAt end: Date) async throws -> DashboardFigures {
        try await DashboardFigures.read(database: database, days: days, endingAt: end)
    }
}

/// The App Store's and Google Play's operations an operator starts, with the stores' verifiers:
/// the server's, or, without them, built from the settings at each use (so they read each
/// catalog's store settings as they are then).
package struct StoreOperations: Sendable {
    private let config: SoukConfig
    private let purchases: PurchaseStore
    private let catalogs: CommerceCatalogCache
    private let settings: StoreSettingsProvider
    private let database: SoukDatabase
    private let verifiers: StoreVerifiers?
    private let now: @Sendable () -> Date

    package init(runtime: SoukRuntime, verifiers: StoreVerifiers?, now: @escaping @Sendable () -> Date) {
        config = runtime.config
        purchases = runtime.purchases
        catalogs = runtime.commerceCatalogs
        settings = runtime.storeSettings
        database = runtime.database
        self.verifiers = verifiers
        self.now = now
    }

    private func currentVerifiers() throws -> StoreVerifiers {
        try verifiers ?? StoreVerifiers.configured(config, settings: settings)
    }

    /// App Store renewal-date extensions and order look-ups.
    package func apple() throws -> AppleOperations { apple(verifiers: try currentVerifiers()) }

    /// Refunds of store purchases asked of the store (Google Play).
    package func refunds() throws -> StoreRefunds { refunds(verifiers: try currentVerifiers()) }

    package func apple(verifiers: StoreVerifiers) -> AppleOperations {
        AppleOperations(purchases: purchases, catalogs: catalogs, settings: settings,
                        api: AppStoreServerAPIClient(endpoints: config.commerce.stores),
                        verifier: verifiers.verifier(for: .appleStore) as? AppleStoreVerifier,
                        extensions: AppleRenewalExtensionStore(database: database), audit: AuditLog(database: database),
                        retry: config.commerce.stores.retry, now: now)
    }

    package func refunds(verifiers: StoreVerifiers) -> StoreRefunds {
        StoreRefunds(purchases: purchases, google: verifiers.verifier(for: .googlePlay) as? GooglePlayStoreVerifier,
                     audit: AuditLog(database: database), now: now)
    }
}
