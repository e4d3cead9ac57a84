import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import SoukApp
import SoukStore

/// The one composition root: the server, the CLI and every test build Souk's HTTP face here.
///
/// Background services (the catalog index refresher, the App Store Connect event worker) run in the
/// application's service group; they use the database, so the caller closes the runtime only after
/// the application has stopped (`ServeCommand`, `ServerFixture`), never as a sibling service.
/// `now` is the clock of sign-in throttling, which tests move by hand. A page template that is
/// missing or does not parse stops it here (`Pages.init(templates:)`; tests pass `templates`).
///
/// The in-memory indexes are built by services that start with the server: the port opens at once
/// (`/health` answers), and `/health/ready` answers 200 once `readiness` says they are loaded.
/// The warm-ups come first in the service list: the group stops services in reverse order, so
/// they stop after the workers that might read the indexes.
public func buildApplication(
    _ runtime: SoukRuntime,
    metrics: SoukMetrics = SoukMetrics(),
    readiness: Readiness = Readiness(),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
    now: @escaping @Sendable () -> Date = { Date() },
    storeVerifiers: StoreVerifiers? = nil,
    templates: [String: String]? = nil
) throws -> some ApplicationProtocol {
    let config = runtime.config
    let storefront = StorefrontIndex(database: runtime.database, refreshInterval: config.catalogRefreshInterval, logger: runtime.logger)
    let worker = AppStoreConnectEventWorker(processor: AppStoreConnectEventProcessor(runtime: runtime, client: try runtime.appStoreConnectClient()))
    // The stores' verifiers (tests pass fakes); the purchase path, its workers and the notification handlers share them.
    let verifiers = try storeVerifiers ?? runtime.storeVerifiers()
    let purchaseIntake = runtime.purchaseIntake(verifiers: verifiers, now: now)
    let stores = StoreWiring(runtime, verifiers: verifiers)
    let router = buildRouter(runtime, metrics: metrics, now: now, appStoreConnectWorker: worker, purchaseIntake: purchaseIntake,
                             storeNotifications: stores.controller(), storefront: storefront, readiness: readiness,
                             pages: try Pages(templates: templates ?? Pages.allTemplates))
    let server: HTTPServerBuilder
    if let tls = config.tls {
        server = try .tls(.http1(), tlsConfiguration: try makeTLSConfiguration(tls))
    } else {
        server = .http1()
    }
    return Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(config.hostname, port: config.port), serverName: "Souk"),
        services: [IndexKeeper.catalog(runtime.catalogIndex, interval: config.catalogRefreshInterval, readiness: readiness, logger: runtime.logger),
                   IndexKeeper.storefront(storefront, interval: config.catalogRefreshInterval, readiness: readiness, logger: runtime.logger),
                   worker,
                   PendingPurchaseWorker(intake: purchaseIntake, purchases: runtime.purchases, logger: runtime.logger),
                   WebhookDeliveryWorker(store: WebhookStore(database: runtime.database), retryBase: config.commerce.webhookRetryBase,
                                         retryMax: config.commerce.webhookRetryMax, logger: runtime.logger),
                   stores.notificationWorker(), stores.actionWorker(),
                   stores.consumptionWorker(), stores.extensionWorker(),
                   ScheduledExportService(runtime, metrics: ScheduledExportMetrics(registry: metrics.registry)),
                   MarketplaceRenewalWorker(store: MarketplaceSubscriptionStore(purchases: runtime.purchases), logger: runtime.logger),
                   ReconciliationService(reconciler: stores.reconciler(), voided: stores.voidedPoller(), interval: .seconds(config.commerce.reconcileIntervalSeconds),
                                         logger: runtime.logger),
                   CleanupService(cleanup: Cleanup(database: runtime.database),
                                  files: StaleFiles(blobs: runtime.blobs, workFolder: runtime.config.workDir),
                                  blobs: UnreferencedBlobs(blobs: runtime.blobs, database: runtime.database),
                                  lease: MaintenanceLease(database: runtime.database),
                                  interval: .seconds(config.cleanupIntervalSeconds), logger: runtime.logger),
                   MetricsRollupService(database: runtime.database, interval: .seconds(config.metricsRollupIntervalSeconds),
                                        logger: runtime.logger),
                   DailyCountsWriter(counts: runtime.dailyCounts, interval: .seconds(5), logger: runtime.logger)],
        onServerRunning: onServerRunning,
        logger: runtime.logger
    )
}

/// Every route Souk answers, in one place.
func buildRouter(_ runtime: SoukRuntime, metrics: SoukMetrics, now: @escaping @Sendable () -> Date = { Date() },
                 appStoreConnectWorker: AppStoreConnectEventWorker? = nil,
                 purchaseIntake: PurchaseIntakeService? = nil,
                 storeNotifications: StoreNotificationController<SoukRequestContext>? = nil,
                 storefront: StorefrontIndex? = nil, readiness: Readiness = Readiness(), pages: Pages) -> Router<SoukRequestContext> {
    let router = Router(context: SoukRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: RequestLogMiddleware(.info))
    router.add(middleware: MetricsMiddleware(metrics: metrics))
    let bearers = runtime.bearerCache, entitlements = runtime.entitlementIndex
    metrics.caches.watch("tokens") { bearers.statistics }
    metrics.caches.watch("entitlements") { entitlements.statistics }
    router.add(middleware: DailyCountsMiddleware(counts: runtime.dailyCounts))
    router.add(middleware: StorefrontErrorPages(pages: pages, catalog: runtime.catalog, keys: runtime.keys))
    router.add(middleware: ProblemMiddleware())
    let routeMethods = RouteMethods()
    router.add(middleware: MethodNotAllowedMiddleware(routes: routeMethods))
    router.add(middleware: BodyLimitMiddleware(maxBytes: runtime.config.maxBodyBytes))
    router.add(middleware: AppBoundTokenMiddleware(bearers: runtime.bearerCache, realm: runtime.config.publicURL))

    OperationsController(database: runtime.database, metrics: metrics, metricsToken: runtime.config.metricsToken, readiness: readiness)
        .addRoutes(to: router)
    PackageHostingController(files: HostedFileCache(query: HostedFileQuery(database: runtime.database),
                                                    lifetime: runtime.config.catalogRefreshInterval),
                             blobs: runtime.blobs, metrics: metrics, delivery: DownloadDelivery(runtime.config, blobs: runtime.blobs))
        .addRoutes(to: router.group("packages"))
    AppIconController(catalog: runtime.catalog, blobs: runtime.blobs).addRoutes(to: router.group("apps"))
    MediaController(catalog: runtime.catalog, blobs: runtime.blobs).addRoutes(to: router.group("media"))
    AssetsController().addRoutes(to: router)
    let bearer = BearerAuthenticator(tokens: runtime.tokens, realm: runtime.config.publicURL)
    let sessions = WebSessionStore(database: runtime.database)
    let passwords = PasswordSignIn(people: PeopleDirectory(database: runtime.database), throttle: LoginThrottle(database: runtime.database, now: now))
    // The device grant's clock is the throttle's: tests move both by hand.
    let deviceGrant = DeviceGrant(tokens: TokenStore(database: runtime.database, lifetimes: runtime.config.tokenLifetimes, now: now),
                                  clients: ClientRegistry(database: runtime.database))
    OAuthController(config: runtime.config, catalog: runtime.catalog, tokens: runtime.tokens, passwords: passwords,
                    sessions: sessions, keys: runtime.keys, signingKeys: runtime.installVerificationKeys, pages: pages,
                    deviceGrant: deviceGrant,
                    idTokens: IDTokenIssuer(issuer: runtime.config.publicURL, keys: runtime.installVerificationKeys,
                                            tokens: runtime.tokens, now: now))
        .addRoutes(to: router)
    let catalog = runtime.catalog, keys = runtime.keys
    DeviceAuthorizationController(config: runtime.config, grant: deviceGrant,
                                  sessions: sessions, throttle: LoginThrottle(database: runtime.database, now: now), pages: pages,
                                  marketplaceName: { try await catalog.marketplaceName(keys: keys) })
        .addRoutes(to: router)
    let commerceAuthenticator = CommerceAuthenticator(
        bearers: runtime.bearerCache, realm: runtime.config.publicURL,
        idTokens: IDTokenVerifier(issuer: runtime.config.publicURL, keyStore: runtime.installVerificationKeys.store,
                                  tokens: runtime.tokens, now: now))
    WebController(config: runtime.config, catalog: runtime.catalog, tokens: runtime.tokens, sessions: sessions,
                  passwords: passwords, keys: runtime.keys, pages: pages, licenses: LicenseStore(database: runtime.database),
                  orders: MarketplaceOrderStore(database: runtime.database), subscriptions: MarketplaceSubscriptionStore(purchases: runtime.purchases))
        .addRoutes(to: router)
    AccountPagesController(account: AccountSelfService(runtime: runtime), sessions: sessions,
                           throttle: LoginThrottle(database: runtime.database, now: now), pages: pages,
                           secure: runtime.config.publicURL.hasPrefix("https://"), marketplaceName: { try await catalog.marketplaceName(keys: keys) })
        .addRoutes(to: router)
    PasswordResetController(links: PasswordResetLinks(database: runtime.database, now: now), catalog: runtime.catalog, tokens: runtime.tokens,
                            sessions: sessions, keys: runtime.keys, pages: pages, secure: runtime.config.publicURL.hasPrefix("https://"))
        .addRoutes(to: router)
    AccountAPIController(bearer: bearer, catalog: runtime.catalog, details: AccountAPIDetails(runtime: runtime))
        .addRoutes(to: router.group("api/v1/account"))
    DeveloperAPIController(operations: DeveloperOperations(runtime: runtime), workDir: runtime.config.workDir,
                           maxBodyBytes: runtime.config.maxBodyBytes)
        .addRoutes(to: router.group("api/v1/developer", context: DeveloperRequestContext.self)
            .add(middleware: DeveloperKeyMiddleware(directory: DeveloperDirectory(database: runtime.database), realm: runtime.config.publicURL)))
    // The operator console's services; the developer console and the developer metrics API use its
    // developer operations and metrics (the actor decides what each reaches).
    let console = OperatorConsoleServices(runtime: runtime, storeVerifiers: purchaseIntake?.verifiers, now: now)
    DeveloperMetricsController(metrics: console.metrics)
        .addRoutes(to: router.group("api/v1/developer/metrics", context: DeveloperRequestContext.self)
            .add(middleware: DeveloperKeyMiddleware(directory: DeveloperDirectory(database: runtime.database), realm: runtime.config.publicURL)))
    AdminController<SoukRequestContext>(services: console, sessions: sessions, pages: pages).addRoutes(to: router)
    DeveloperConsoleController<SoukRequestContext>(services: console.developer, sessions: sessions, pages: pages, totp: console.totp,
                                                   metrics: console.metrics,
                                                   requiresTwoFactor: console.consoleRequiresTwoFactor, keysDir: console.keysDir,
                                                   marketplaceName: console.marketplaceName)
        .addRoutes(to: router)
    let storefront = storefront ?? StorefrontIndex(database: runtime.database, refreshInterval: runtime.config.catalogRefreshInterval,
                                                   logger: runtime.logger)
    AppPagesController(runtime: runtime, sessions: sessions, pages: pages, storefront: storefront).addRoutes(to: router)
    MarketplaceAppAPI(runtime: runtime, bearer: bearer, storefront: storefront).addRoutes(to: router)
    MarketplaceKitConfigController(config: runtime.config, catalog: runtime.catalog, keys: runtime.keys).addRoutes(to: router)
    AppDataController(config: runtime.config, index: runtime.catalogIndex, catalog: runtime.catalog,
                      ledger: InstallLedger(database: runtime.database), bearer: bearer, keys: runtime.keys,
                      signingKeys: runtime.installVerificationKeys, payments: AppPayments(runtime: runtime))
        .addRoutes(to: router)
    LicenseController(service: LicenseService(runtime: runtime, issuer: runtime.licenseIssuer()), index: runtime.catalogIndex, bearer: bearer,
                      catalog: runtime.catalog, keys: runtime.keys, pages: pages, sessions: sessions)
        .addRoutes(to: router)
    AppStoreConnectWebhookController(secret: runtime.config.appStoreConnect.webhookSecret,
                                     store: AppStoreConnectEventStore(database: runtime.database), worker: appStoreConnectWorker)
        .addRoutes(to: router)
    CommerceCatalogController(catalogs: runtime.commerceCatalogs, providerName: runtime.config.commerce.providerName,
                              publicURL: runtime.config.publicURL)
        .addRoutes(to: router)
    if let purchaseIntake {
        CommercePurchaseController(intake: purchaseIntake, catalogs: runtime.commerceCatalogs, purchases: runtime.purchases,
                                   authenticator: commerceAuthenticator,
                                   entitlements: EntitlementReader(index: runtime.entitlementIndex, now: { Date() }),
                                   publicURL: runtime.config.publicURL)
            .addRoutes(to: router)
    }
    CommerceCustomerController(catalogs: runtime.commerceCatalogs, purchases: runtime.purchases, accountTokens: runtime.accountTokens,
                               authenticator: commerceAuthenticator,
                               entitlements: EntitlementReader(index: runtime.entitlementIndex, now: { Date() }))
        .addRoutes(to: router)
    PromotionalOfferController(catalogs: runtime.commerceCatalogs, authenticator: commerceAuthenticator,
                               offers: PromotionalOfferService(index: runtime.entitlementIndex, now: { Date() }, nonce: { UUID() },
                                                               logger: runtime.logger))
        .addRoutes(to: router)
    HostedContentController(catalogs: runtime.commerceCatalogs,
                            content: HostedContentStore(database: runtime.database, blobs: runtime.blobs, workArea: runtime.config.workDir),
                            authenticator: commerceAuthenticator,
                            entitlements: EntitlementReader(index: runtime.entitlementIndex, now: { Date() }), publicURL: runtime.config.publicURL,
                            delivery: DownloadDelivery(runtime.config, blobs: runtime.blobs))
        .addRoutes(to: router)
    CheckoutController(bearer: bearer, checkout: CheckoutService(runtime: runtime), webhookSecret: runtime.config.commerce.stripeWebhookSecret)
        .addRoutes(to: router)
    storeNotifications?.addRoutes(to: router)
    AppTransactionController(catalogs: runtime.commerceCatalogs, settings: runtime.storeSettings, apple: storeNotifications?.apple,
                             authenticator: commerceAuthenticator)
        .addRoutes(to: router)
    routeMethods.load(router)
    return router
}

private func makeTLSConfiguration(_ files: SoukConfig.TLSFiles) throws -> TLSConfiguration {
    do {
        let chain = try NIOSSLCertificate.fromPEMFile(files.certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: files.keyPath, format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    } catch {
        throw StartupError("cannot load TLS certificate \(files.certificatePath) and key \(files.keyPath): \(error)")
    }
}
