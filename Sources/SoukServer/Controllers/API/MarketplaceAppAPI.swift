import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The marketplace app's JSON API under `/api/v1` (docs/api.md): the catalog reads and the install
/// endpoint, wired from the runtime in one place so that the router's list stays one line.
struct MarketplaceAppAPI<Context: BearerRequestContext> {
    let catalogAPI: CatalogAPIController<Context>
    let installAPI: InstallAPIController<Context>

    init(runtime: SoukRuntime, bearer: BearerAuthenticator, storefront: StorefrontIndex) {
        let payments = AppPayments(runtime: runtime)
        let ledger = InstallLedger(database: runtime.database)
        let publicURL = runtime.config.publicURL
        let processor = runtime.config.commerce.paymentProcessor
        catalogAPI = CatalogAPIController(
            storefront: storefront, index: runtime.catalogIndex, catalog: runtime.catalog, commerceCatalogs: runtime.commerceCatalogs,
            viewers: APIViewerReader(bearer: bearer, people: PeopleDirectory(database: runtime.database), orders: MarketplaceOrderStore(database: runtime.database),
                                     payments: payments, ledger: ledger, paymentProcessor: processor),
            publicURL: publicURL)
        installAPI = InstallAPIController(
            bearer: bearer, index: runtime.catalogIndex, catalog: runtime.catalog, payments: payments, ledger: ledger, keys: runtime.keys,
            signingKeys: runtime.installVerificationKeys, commerceCatalogs: runtime.commerceCatalogs, publicURL: publicURL,
            paymentProcessor: processor)
    }

    func addRoutes(to router: Router<Context>) {
        catalogAPI.addRoutes(to: router)
        installAPI.addRoutes(to: router)
    }
}

extension AccountAPIDetails {
    init(runtime: SoukRuntime) {
        self.init(tokens: runtime.tokens, orders: MarketplaceOrderStore(database: runtime.database),
                  plans: MarketplaceSubscriptionStore(purchases: runtime.purchases), entitlements: runtime.entitlementIndex,
                  commerceCatalogs: runtime.commerceCatalogs, now: { Date() })
    }
}
