import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// The store side of one Souk process (issue 12), built from one set of verifiers: the
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
                                           ring: {})
    }

    func notificationWorker() -> StoreNotificationWorker {
        var handlers: [any StoreNotificationHandler] = []
        if let apple {
            handlers.append(AppleNotificationHandler(verifier: apple, purchases: runtime.purchases, catalogs: runtime.commerceCatalogs))
        }
        if let google = verifiers.verifier(for: .googlePlay) {
            handlers.append(GoogleNotificationHandler(verifier: google, purchases: runtime.purchases, catalogs: runtime.commerceCatalogs))
        }
        return StoreNotificationWorker(store: StoreNotificationStore(database: runtime.database), handlers: handlers, retry: retry,
                                       logger: runtime.logger)
    }

    func actionWorker() -> StoreActionWorker {
        let performers = CommerceStore.allCases.compactMap { verifiers.verifier(for: $0) as? any StoreActionPerformer }
        return StoreActionWorker(purchases: runtime.purchases, performers: performers, retry: retry, storeStatus: storeStatus,
                                 logger: runtime.logger)
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
