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

/// The metrics page's filters on both databases (docs/metrics.md, "Filters"): the form offers the
/// stores, the app's products and countries in the rollup and the environment, keeps what was chosen,
/// and the chart and table show the chosen scope's numbers; a combination is a 400 page naming it.
@Suite struct ConsoleMetricsFilterTests {
    typealias T = DeveloperConsoleTests
    typealias P = ConsoleMetricsPageTests

    /// Ada's purchase of `productId` two days ago, bought in `country` (nil: the store did not say).
    static func subscribe(_ runtime: SoukRuntime, _ productId: String, transaction: String, price: Int64, country: String?) async throws {
        let state = try #require(try await runtime.commerceCatalogs.state(app: T.acmeCatalog))
        let product = try #require(state.product(productId))
        let sku = try #require(product.skus[.appleStore])
        let account = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
        let purchased = MetricDay(containing: Date()).adding(days: -2).start.addingTimeInterval(3_600)
        let claim = PurchaseClaim(store: .appleStore, app: T.acmeCatalog, storeProductId: sku, transactionId: transaction, receipt: "-")
        var verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction, storeProductId: sku,
                                        type: product.type, purchaseDate: purchased, expiresDate: purchased.addingTimeInterval(300 * 86_400),
                                        environment: .production, app: T.acmeCatalog, signedDate: purchased)
        verified.price = price
        verified.currency = "USD"
        verified.country = country
        _ = try await runtime.purchases.record(PurchaseIntake(account: account, product: product, claim: claim), verified: verified,
                                               environment: .production, policy: .transfer, catalog: state)
    }

    @Test(arguments: TestBackend.available)
    func theFormFiltersTheChartAndTableAndKeepsWhatWasChosen(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Self.subscribe(runtime, "reader.monthly", transaction: "9400", price: 9990, country: "DE")
            try await Self.subscribe(runtime, "reader.yearly", transaction: "9401", price: 47_880, country: nil)
            try await MetricRollupJob(database: runtime.database).rebuild(app: T.acmeCatalog)
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let today = MetricDay(containing: Date())
            let base = "/developer/metrics?app=\(T.acmeCatalog)&metric=active_subscriptions&from=\(today.adding(days: -1))&to=\(today)"

            let all = try await P.page(client, base, session: mia)
            #expect(all.status == .ok && all.html.contains("<tr><td>\(today)</td><td>2</td></tr>"), "\(all.html)")
            for field in ["metrics-store", "metrics-product", "metrics-country", "metrics-environment"] {
                #expect(all.html.contains(#"<select id="\#(field)""#), "\(field)")
            }
            #expect(all.html.contains(#"<option value="reader.monthly">reader.monthly</option>"#))
            #expect(all.html.contains(#"<option value="reader.yearly">reader.yearly</option>"#))
            #expect(all.html.contains(#"<option value="DE">DE</option>"#) && all.html.contains(#"<option value="apple_store">App Store</option>"#))
            #expect(all.html.contains(#"<option value="production" selected>Production</option>"#))

            // A country (Apple's alpha-3 is the same country): only the periods known to be there.
            let germany = try await P.page(client, "\(base)&country=DEU", session: mia)
            #expect(germany.status == .ok && germany.html.contains("<tr><td>\(today)</td><td>1</td></tr>"), "\(germany.html)")
            #expect(germany.html.contains(#"<option value="DE" selected>DE</option>"#) && germany.html.contains("(country DE)"))
            let product = try await P.page(client, "\(base)&product=reader.yearly", session: mia)
            #expect(product.html.contains("<tr><td>\(today)</td><td>1</td></tr>") && product.html.contains(#"<option value="reader.yearly" selected>"#))
            let store = try await P.page(client, "\(base)&store=google_play", session: mia)
            #expect(store.html.contains("<tr><td>\(today)</td><td>0</td></tr>") && store.html.contains(#"<option value="google_play" selected>"#))
            let sandbox = try await P.page(client, "\(base)&environment=sandbox", session: mia)
            #expect(sandbox.html.contains("<tr><td>\(today)</td><td>0</td></tr>") && sandbox.html.contains(#"<option value="sandbox" selected>"#))
            let revenue = try await P.page(client, "/developer/metrics?app=\(T.acmeCatalog)&metric=revenue&from=\(today.adding(days: -2))&to=\(today)&country=DE",
                                           session: mia)
            #expect(revenue.html.contains("<tr><td>\(today.adding(days: -2))</td><td>9.99</td>"), "\(revenue.html)")

            // A combination the rollup does not keep, or a country that is none: a 400 page naming it, no chart.
            let combined = try await P.page(client, "\(base)&store=apple_store&country=DE", session: mia)
            #expect(combined.status == .badRequest && combined.html.contains("country: the rollup keeps one of store, product or country"))
            #expect(!combined.html.contains("<svg") && combined.html.contains(#"<option value="apple_store" selected>"#))
            let bad = try await P.page(client, "\(base)&country=XX", session: mia)
            #expect(bad.status == .badRequest && bad.html.contains("country: must be an ISO 3166-1 country code"))

            // The operator's page has the same filters.
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let admin = try await P.page(client, base.replacingOccurrences(of: "/developer/", with: "/admin/") + "&country=DE", session: olive)
            #expect(admin.status == .ok && admin.html.contains("<tr><td>\(today)</td><td>1</td></tr>"), "\(admin.status)")
        }
    }
}
