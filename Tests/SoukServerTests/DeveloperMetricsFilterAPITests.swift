import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `GET /api/v1/developer/metrics` filtered by store, product, country and environment on both
/// databases (docs/metrics.md, "Filters"): each filter answers the rollup's numbers of its scope, a
/// country where known; a malformed filter or a combination the rollup does not keep is a 400 naming
/// the parameter, never a number.
@Suite struct DeveloperMetricsFilterAPITests {
    typealias World = DeveloperAPIWorld

    /// A purchase of `productId` two days ago, bought in `country` (nil: the store did not say).
    static func buy(_ runtime: SoukRuntime, _ world: World, _ productId: String, transaction: String, country: String?,
                    environment: CommerceEnvironment = .production) async throws {
        let state = try #require(try await runtime.commerceCatalogs.state(app: World.acmeApp))
        let product = try #require(state.product(productId))
        let purchased = MetricDay(containing: Date()).adding(days: -2).start.addingTimeInterval(3_600)
        let sku = product.skus[.appleStore] ?? ""
        let claim = PurchaseClaim(store: .appleStore, app: World.acmeApp, storeProductId: sku, transactionId: transaction, receipt: "jws-\(transaction)")
        var verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction, storeProductId: sku,
                                        type: product.type, purchaseDate: purchased, expiresDate: purchased.addingTimeInterval(300 * 86_400),
                                        environment: environment, app: World.acmeApp, signedDate: purchased)
        verified.price = 9990
        verified.currency = "USD"
        verified.country = country
        _ = try await runtime.purchases.record(PurchaseIntake(account: world.buyer, product: product, claim: claim), verified: verified,
                                               environment: environment, policy: .transfer, catalog: state)
    }

    @Test(arguments: TestBackend.available)
    func eachFilterAnswersItsScopesNumbers(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            try await Self.buy(runtime, world, "reader.monthly", transaction: "8301", country: "DE")
            try await Self.buy(runtime, world, "reader.yearly", transaction: "8302", country: nil)
            try await Self.buy(runtime, world, "reader.monthly", transaction: "8303", country: "US", environment: .sandbox)
            try await MetricRollupJob(database: runtime.database).rebuild(app: World.acmeApp)
            let today = MetricDay(containing: Date())
            let base = "metrics?metric=active_subscriptions&from=\(today.adding(days: -1))&to=\(today)&app=\(World.acmeApp)"
            func latest(_ filter: String) async throws -> (Int?, [String: Any]) {
                let answer = try await client.developer(.get, "\(base)\(filter)", key: world.metricsOnlyKey)
                #expect(answer.status == .ok, "\(filter): \(answer.text)")
                return ((answer.object["points"] as? [[String: Any]])?.last?["value"] as? Int, answer.object)
            }
            #expect(try await latest("").0 == 2)
            let germany = try await latest("&country=DE")
            #expect(germany.0 == 1 && germany.1["country"] as? String == "DE" && germany.1["store"] == nil)
            // Alpha-3 as Apple writes it, in any case, is the same country.
            #expect(try await latest("&country=deu").1["country"] as? String == "DE")
            #expect(try await latest("&country=FR").0 == 0)
            #expect(try await latest("&country=US").0 == 0)
            #expect(try await latest("&country=US&environment=sandbox").0 == 1)
            #expect(try await latest("&product=reader.yearly").0 == 1)
            let store = try await latest("&store=apple_store")
            #expect(store.0 == 2 && store.1["store"] as? String == "apple_store")
            #expect(try await latest("&store=google_play").0 == 0)
            #expect(try await latest("&environment=sandbox").0 == 1)
            let revenue = try await client.developer(.get, "metrics?metric=revenue&from=\(today.adding(days: -2))&to=\(today)&app=\(World.acmeApp)&country=DE",
                                                     key: world.acmeKey)
            #expect((revenue.object["points"] as? [[String: Any]])?.first?["value"] as? Int == 999, "\(revenue.text)")
        }
    }

    @Test(arguments: TestBackend.available)
    func aMalformedFilterOrACombinationIsA400NamingIt(backend: TestBackend) async throws {
        try await World.with(backend) { client, _, world in
            let base = "metrics?metric=mrr&from=2026-11-01&to=2026-11-02&app=\(World.acmeApp)"
            let long = String(repeating: "p", count: 201)
            for (filter, field) in [("store=itunes", "store"), ("environment=staging", "environment"), ("country=XX", "country"),
                                    ("country=UNITED", "country"), ("product=\(long)", "product"), ("product=reader.nothing", "product"),
                                    ("store=apple_store&country=DE", "country"), ("product=reader.monthly&store=roku", "product"),
                                    ("product=reader.monthly&country=US&store=roku", "country")] {
                let answer = try await client.developer(.get, "\(base)&\(filter)", key: world.acmeKey)
                #expect(answer.status == .badRequest && answer.headers[.contentType] == "application/problem+json", "\(filter): \(answer.status)")
                #expect(answer.object["field"] as? String == field, "\(filter): \(answer.text)")
            }
            let unknown = try await client.developer(.get, "\(base)&product=reader.nothing", key: world.acmeKey)
            #expect((unknown.object["detail"] as? String)?.contains("no product of \(World.acmeApp)'s catalog") == true, "\(unknown.text)")
            let combined = try await client.developer(.get, "\(base)&store=apple_store&country=DE", key: world.acmeKey)
            #expect((combined.object["detail"] as? String)?.contains("not a combination") == true, "\(combined.text)")
            // Another organisation's app stays not found, whatever the filter.
            let theirs = "metrics?metric=mrr&from=2026-11-01&to=2026-11-02&app=\(World.betaApp)&country=DE"
            #expect(try await client.developer(.get, theirs, key: world.acmeKey).status == .notFound)
        }
    }
}
