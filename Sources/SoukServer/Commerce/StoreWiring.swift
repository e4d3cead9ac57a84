import Foundation
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// The store side of one Souk process, built from one set of verifiers: the
/// notification routes and their worker, the acknowledgement queue, reconciliation.
struct StoreWiring {
    let runtime: SoukRuntime
    let verifiers: StoreVerifiers

    init(_ runtime: SoukRuntime, verifiers: StoreVerifiers) {
        self.runtime = runtime
        self.verifiers = verifiers
    }

    var apple: AppleSignedDataVerifier? { (verifiers.verifier(for: .appleStore) as? AppleStoreVerifier)?.verifier }
    var storeStatus: StoreStatusStore { StoreStatusStore(database: runtime.database) }
    var retry: StoreRetryPolicy { runtime.config.commerce.stores.retry }

    func controller() -> StoreNotificationController<SoukRequestContext> {
        let push = GooglePushTokenVerifier(certsURL: runtime.config.commerce.stores.googlePushCertsURL, http: StoreHTTPClient(retry: retry))
        return StoreNotificationController(catalogs: runtime.commerceCatalogs, settings: runtime.storeSettings, apple: apple,
                                           notifications: StoreNotificationStore(database: runtime.database),
                                           pushToken: { bearer, audience, email in await push.verify(authorization: bearer, audience: audience, email: email) },
                                           ring: {}, push: pushController())
    }

    /// Amazon's and Roku's push endpoints; nil parts where this process has no verifier for the store.
    func pushController() -> StorePushController<SoukRequestContext> {
        let endpoints = runtime.config.commerce.stores
        // The pattern was checked when the settings were read; a bad one leaves Amazon's endpoint answering 503.
        let sns = try? AmazonSNSVerifier(pattern: endpoints.amazonSNSCertURLPattern, http: StoreHTTPClient(retry: retry))
        return StorePushController(catalogs: runtime.commerceCatalogs, settings: runtime.storeSettings,
                                   notifications: StoreNotificationStore(database: runtime.database), sns: sns,
                                   amazon: handler(.amazon), roku: handler(.roku), rokuDeadline: endpoints.rokuPushDeadline,
                                   retry: retry, now: { Date() })
    }

    func handler(_ store: CommerceStore) -> RereadNotificationHandler? {
        verifiers.verifier(for: store).map {
            RereadNotificationHandler(kind: store, verifier: $0, purchases: runtime.purchases, catalogs: runtime.commerceCatalogs)
        }
    }

    func notificationWorker() -> StoreNotificationWorker {
        var handlers: [any StoreNotificationHandler] = []
        if let apple {
            handlers.append(AppleNotificationHandler(verifier: apple, purchases: runtime.purchases, catalogs: runtime.commerceCatalogs,
                                                     consumption: AppleConsumptionStore(database: runtime.database)))
        }
        if let google = verifiers.verifier(for: .googlePlay) {
            handlers.append(GoogleNotificationHandler(verifier: google, purchases: runtime.purchases, catalogs: runtime.commerceCatalogs))
        }
        for store in [CommerceStore.amazon, .roku] {
            if let reread = handler(store) { handlers.append(reread) }
        }
        return StoreNotificationWorker(store: StoreNotificationStore(database: runtime.database), handlers: handlers, retry: retry,
                                       logger: runtime.logger)
    }

    func actionWorker() -> StoreActionWorker {
        let performers = CommerceStore.allCases.compactMap { verifiers.verifier(for: $0) as? any StoreActionPerformer }
        return StoreActionWorker(purchases: runtime.purchases, performers: performers, retry: retry, storeStatus: storeStatus,
                                 logger: runtime.logger)
    }

    /// Answers Apple's refund requests (Send Consumption Information).
    func consumptionWorker() -> AppleConsumptionWorker {
        AppleConsumptionWorker(requests: AppleConsumptionStore(database: runtime.database), purchases: runtime.purchases,
                               settings: runtime.storeSettings, api: AppStoreServerAPIClient(endpoints: runtime.config.commerce.stores),
                               retry: retry, storeStatus: storeStatus, logger: runtime.logger)
    }

    /// Follows Apple's mass renewal-date extensions until complete, then moves the entitlements.
    func extensionWorker() -> AppleExtensionWorker {
        AppleExtensionWorker(operations: runtime.appleOperations(verifiers: verifiers), logger: runtime.logger)
    }

    /// Google Play's voided purchases of every app with a catalog, when Google is verified here.
    func voidedPoller() -> GoogleVoidedPurchasesPoller? {
        runtime.googleVoidedPoller(verifiers: verifiers)
    }

    func reconciler() -> Reconciler {
        Reconciler(purchases: runtime.purchases, verifiers: verifiers, catalogs: runtime.commerceCatalogs, storeStatus: storeStatus,
                   retryBase: retry.base.timeInterval,
                   logger: runtime.logger)
    }
}
