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

/// `GET /api/v1/developer/metrics` on both databases: the rollup's numbers for the organisation's
/// own app with `metrics:read`, by day and week; another organisation's app is 404, a key without
/// the scope 403, a bad query 400/422, and money without an exchange rate a 409 naming it.
@Suite struct DeveloperMetricsAPITests {
    typealias World = DeveloperAPIWorld

    static func buy(_ runtime: SoukRuntime, _ world: World, transaction: String, daysAgo: Int, price: Int64, currency: String) async throws {
        let state = try #require(try await runtime.commerceCatalogs.state(app: World.acmeApp))
        let product = try #require(state.product("reader.monthly"))
        let today = MetricDay(containing: Date())
        let purchased = today.adding(days: -daysAgo).start.addingTimeInterval(3_600)
        let claim = PurchaseClaim(store: .appleStore, app: World.acmeApp, storeProductId: product.skus[.appleStore] ?? "",
                                  transactionId: transaction, receipt: "jws-\(transaction)")
        var verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction,
                                        storeProductId: product.skus[.appleStore] ?? "", type: product.type, purchaseDate: purchased,
                                        expiresDate: purchased.addingTimeInterval(30 * 86_400), environment: .production,
                                        app: World.acmeApp, signedDate: purchased)
        verified.price = price
        verified.currency = currency
        _ = try await runtime.purchases.record(PurchaseIntake(account: world.buyer, product: product, claim: claim), verified: verified,
                                               environment: .production, policy: .transfer, catalog: state)
    }

    @Test(arguments: TestBackend.available)
    func theRollupsNumbersAnswerByDayAndWeek(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            try await Self.buy(runtime, world, transaction: "8101", daysAgo: 2, price: 9990, currency: "USD")
            try await MetricRollupJob(database: runtime.database).rebuild(app: World.acmeApp)
            let today = MetricDay(containing: Date())
            let range = "from=\(today.adding(days: -2))&to=\(today)&app=\(World.acmeApp)"
            let mrr = try await client.developer(.get, "metrics?metric=mrr&\(range)", key: world.metricsOnlyKey)
            #expect(mrr.status == .ok, "\(mrr.text)")
            let points = mrr.object["points"] as? [[String: Any]] ?? []
            #expect(points.count == 3 && points.allSatisfy { $0["value"] as? Int == 999 }, "\(mrr.text)")
            #expect(mrr.object["currency"] as? String == "USD" && mrr.object["environment"] as? String == "production")
            #expect(points.first?["start"] as? String == today.adding(days: -2).description)

            let revenue = try await client.developer(.get, "metrics?metric=revenue&interval=week&\(range)", key: world.acmeKey)
            let weeks = revenue.object["points"] as? [[String: Any]] ?? []
            #expect(revenue.status == .ok && weeks.map { $0["value"] as? Int ?? -1 }.reduce(0, +) == 999, "\(revenue.text)")
            let churned = try await client.developer(.get, "metrics?metric=churned&\(range)", key: world.acmeKey)
            let first = (churned.object["points"] as? [[String: Any]])?.first
            #expect(churned.object["currency"] == nil && (first?["breakdown"] as? [String: Int])?["voluntary"] == 0, "\(churned.text)")
        }
    }

    @Test(arguments: TestBackend.available)
    func aMissingRateIsA409NamingItAndCountsNeedNone(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            try await Self.buy(runtime, world, transaction: "8201", daysAgo: 1, price: 4990, currency: "EUR")
            try await MetricRollupJob(database: runtime.database).rebuild(app: World.acmeApp)
            let today = MetricDay(containing: Date())
            let range = "from=\(today.adding(days: -1))&to=\(today)&app=\(World.acmeApp)"
            let refused = try await client.developer(.get, "metrics?metric=mrr&\(range)", key: world.acmeKey)
            #expect(refused.status == .conflict && refused.headers[.contentType] == "application/problem+json")
            #expect(refused.object["type"] as? String == "urn:souk:problem:missing-exchange-rate")
            #expect((refused.object["detail"] as? String)?.contains("EUR on \(today.adding(days: -1))") == true, "\(refused.text)")
            let counted = try await client.developer(.get, "metrics?metric=active_subscriptions&\(range)", key: world.acmeKey)
            #expect(counted.status == .ok && (counted.object["points"] as? [[String: Any]])?.last?["value"] as? Int == 1, "\(counted.text)")

            _ = try await ExchangeRateStore(database: runtime.database)
                .set(ExchangeRate(currency: "EUR", perUSDScaled: 50_000_000, from: today.adding(days: -30)), by: "test", at: Date())
            let converted = try await client.developer(.get, "metrics?metric=mrr&\(range)", key: world.acmeKey)
            #expect(converted.status == .ok && (converted.object["points"] as? [[String: Any]])?.last?["value"] as? Int == 998,
                    "\(converted.text)")
        }
    }

    @Test(arguments: TestBackend.available)
    func anotherOrganisationsAppIs404AndAKeyWithoutTheScope403(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let range = "from=2026-11-01&to=2026-11-02"
            #expect(try await client.developer(.get, "metrics?metric=mrr&\(range)&app=\(World.betaApp)", key: world.acmeKey).status == .notFound)
            #expect(try await client.developer(.get, "metrics?metric=mrr&\(range)&app=\(World.acmeApp)", key: world.betaKey).status == .notFound)
            #expect(try await client.developer(.get, "metrics?metric=mrr&\(range)&app=org.nobody.app", key: world.acmeKey).status == .notFound)
            let narrow = try await DeveloperDirectory(database: runtime.database)
                .createKey(developer: "acme", name: "purchases", scopes: [.purchasesRead], createdBy: .cli(user: "tester"))
            let forbidden = try await client.developer(.get, "metrics?metric=mrr&\(range)&app=\(World.acmeApp)", key: narrow.secret)
            #expect(forbidden.status == .forbidden && forbidden.object["type"] as? String == "urn:souk:problem:missing-scope")
            #expect(try await client.developer(.get, "metrics?metric=mrr&\(range)&app=\(World.acmeApp)", key: nil).status == .unauthorized)
            for bad in ["metric=nope&\(range)", "metric=mrr&from=2026-13-01&to=2026-11-02", "metric=mrr&from=2026-11-01",
                        "metric=mrr&\(range)&interval=year", "\(range)"] {
                let answer = try await client.developer(.get, "metrics?\(bad)&app=\(World.acmeApp)", key: world.acmeKey)
                #expect(answer.status == .badRequest && answer.headers[.contentType] == "application/problem+json", "\(bad): \(answer.status)")
            }
            let backwards = try await client.developer(.get, "metrics?metric=mrr&from=2026-11-02&to=2026-11-01&app=\(World.acmeApp)",
                                                       key: world.acmeKey)
            #expect(backwards.status == .unprocessableContent && backwards.object["field"] as? String == "from")
        }
    }
}
