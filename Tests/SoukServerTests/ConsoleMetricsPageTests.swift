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

/// The consoles' metrics page (`/developer/metrics`, `/admin/metrics`) on both databases: the
/// rollup's numbers as a chart and the table beside it, the organisation's own apps only (another's
/// is 404), any app for the operator's staff, a missing exchange rate named on the page.
@Suite struct ConsoleMetricsPageTests {
    typealias T = DeveloperConsoleTests

    /// A monthly subscription of the Acme catalog's reader bought `daysAgo` days ago by Ada, for
    /// `price` milli-units of `currency`, and the rollup rebuilt.
    static func subscribe(_ runtime: SoukRuntime, transaction: String, daysAgo: Int, price: Int64, currency: String) async throws {
        let state = try #require(try await runtime.commerceCatalogs.state(app: T.acmeCatalog))
        let product = try #require(state.product("reader.monthly"))
        let sku = try #require(product.skus[.appleStore])
        let account = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
        let purchased = MetricDay(containing: Date()).adding(days: -daysAgo).start.addingTimeInterval(3_600)
        let claim = PurchaseClaim(store: .appleStore, app: T.acmeCatalog, storeProductId: sku, transactionId: transaction, receipt: "-")
        var verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction,
                                        storeProductId: sku, type: product.type, purchaseDate: purchased,
                                        expiresDate: purchased.addingTimeInterval(30 * 86_400), environment: .production,
                                        app: T.acmeCatalog, signedDate: purchased)
        verified.price = price
        verified.currency = currency
        _ = try await runtime.purchases.record(PurchaseIntake(account: account, product: product, claim: claim), verified: verified,
                                               environment: .production, policy: .transfer, catalog: state)
        try await MetricRollupJob(database: runtime.database).rebuild(app: T.acmeCatalog)
    }

    static func page(_ client: any TestClientProtocol, _ uri: String, session: String) async throws -> (status: HTTPResponse.Status, html: String) {
        let response = try await T.get(client, uri, session: session)
        return (response.status, String(buffer: response.body))
    }

    @Test(arguments: TestBackend.available)
    func aMemberSeesTheRollupsNumbersAsAChartAndATableOfTheirOwnAppsOnly(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Self.subscribe(runtime, transaction: "9100", daysAgo: 2, price: 9990, currency: "USD")
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            let today = MetricDay(containing: Date())
            let range = "from=\(today.adding(days: -2))&to=\(today)"

            let mrr = try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&metric=mrr&\(range)", session: mia)
            #expect(mrr.status == .ok, "\(mrr.html)")
            #expect(mrr.html.contains(#"<svg class="chart" role="img""#) && mrr.html.contains(#"<title id="chart-monthly-recurring-revenue-title">"#))
            for day in 0...2 {
                #expect(mrr.html.contains("<tr><td>\(today.adding(days: -day))</td><td>9.99</td>"), "day -\(day)")
            }
            #expect(mrr.html.contains(#"<a href="/developer/metrics">Metrics</a>"#))
            #expect(mrr.html.contains(#"<option value="\#(T.acmeCatalog)" selected>"#) && !mrr.html.contains(T.rivalCatalog))

            // By week the flow is the sum of its days; counts carry no currency; churn has its reasons.
            let revenue = try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&metric=revenue&interval=week&\(range)", session: mia)
            #expect(revenue.status == .ok && revenue.html.contains("<td>9.99</td>") && revenue.html.contains("Value (USD)") && revenue.html.contains("Week from"))
            let active = try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&metric=active_subscriptions&\(range)", session: mia)
            #expect(active.html.contains("<tr><td>\(today)</td><td>1</td></tr>"), "\(active.html)")
            let churned = try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&metric=churned&\(range)", session: mia)
            #expect(churned.html.contains("<td>voluntary 0, billing 0, refund 0, other 0</td>"))

            // Without a query: the first of the organisation's apps, MRR, the last 30 days.
            let defaults = try await Self.page(client, "/developer/metrics", session: mia)
            #expect(defaults.status == .ok && defaults.html.contains(#"value="\#(today.adding(days: -29))""#))
            #expect(defaults.html.contains("<tr><td>\(today)</td><td>9.99</td>"))

            // Another organisation's app is not found, as for an app that does not exist; its own page shows its own app.
            #expect(try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&\(range)", session: riva).status == .notFound)
            #expect(try await Self.page(client, "/developer/metrics?app=org.nobody.app&\(range)", session: mia).status == .notFound)
            let rival = try await Self.page(client, "/developer/metrics", session: riva)
            #expect(rival.status == .ok && rival.html.contains(T.rivalCatalog) && !rival.html.contains(T.acmeCatalog))

            // A malformed field is named (400), a range backwards is 422; neither draws a chart.
            let bad = try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&metric=nope&from=2026-13-01", session: mia)
            #expect(bad.status == .badRequest && bad.html.contains(#"role="alert""#) && bad.html.contains("from: a day is written YYYY-MM-DD"))
            #expect(!bad.html.contains("<svg"))
            let backwards = try await Self.page(client, "/developer/metrics?app=\(T.acmeCatalog)&from=\(today)&to=\(today.adding(days: -1))", session: mia)
            #expect(backwards.status == .unprocessableContent && backwards.html.contains("from: must not be after to"))
        }
    }

    @Test(arguments: TestBackend.available)
    func aMissingExchangeRateIsNamedOnThePageAndCountsNeedNone(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Self.subscribe(runtime, transaction: "9200", daysAgo: 1, price: 4990, currency: "EUR")
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let today = MetricDay(containing: Date())
            let range = "app=\(T.acmeCatalog)&from=\(today.adding(days: -1))&to=\(today)"
            let refused = try await Self.page(client, "/developer/metrics?metric=mrr&\(range)", session: mia)
            #expect(refused.status == .conflict && refused.html.contains(#"role="alert""#), "\(refused.html)")
            #expect(refused.html.contains("no exchange rate in force for EUR on \(today.adding(days: -1))") && !refused.html.contains("<svg"))
            let counted = try await Self.page(client, "/developer/metrics?metric=active_subscriptions&\(range)", session: mia)
            #expect(counted.status == .ok && counted.html.contains("<tr><td>\(today)</td><td>1</td></tr>"))
        }
    }

    @Test(arguments: TestBackend.available)
    func theOperatorsStaffSeeAnyAppOnTheSamePage(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Self.subscribe(runtime, transaction: "9300", daysAgo: 1, price: 9990, currency: "USD")
            let today = MetricDay(containing: Date())
            let uri = "/admin/metrics?app=\(T.acmeCatalog)&metric=mrr&from=\(today.adding(days: -1))&to=\(today)"
            for email in ["olive@example.com", "sam@example.com"] {
                let session = try #require(try await WebAccountTests.webSignIn(client, email: email))
                let page = try await Self.page(client, uri, session: session)
                #expect(page.status == .ok, "\(email): \(page.status)")
                #expect(page.html.contains("<tr><td>\(today)</td><td>9.99</td>") && page.html.contains(#"<a href="/admin/metrics">Metrics</a>"#))
                #expect(page.html.contains(#"<option value="\#(T.rivalCatalog)">"#) && page.html.contains(#"<option value="marketplace">"#))
            }
            // A member of an organisation is no staff: the operator's page refuses them.
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            #expect(try await Self.page(client, uri, session: mia).status == .forbidden)
        }
    }

    @Test(arguments: TestBackend.available)
    func bothConsolesDownloadTheRawExportsWithinTheirReach(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Self.subscribe(runtime, transaction: "9300", daysAgo: 1, price: 9990, currency: "USD")
            let today = MetricDay(containing: Date())
            let query = "app=\(T.acmeCatalog)&from=\(today.adding(days: -3))&to=\(today)&format=csv"
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))

            // The metrics page offers the download form; support staff do not get it.
            #expect(try await Self.page(client, "/developer/metrics", session: mia).html.contains(#"action="/developer/exports""#))
            #expect(try await Self.page(client, "/admin/metrics", session: olive).html.contains(#"action="/admin/exports""#))
            #expect(try await !Self.page(client, "/admin/metrics", session: sam).html.contains(#"action="/admin/exports""#))

            for (uri, session) in [("/developer/exports?kind=purchases&\(query)", mia), ("/admin/exports?kind=purchases&\(query)", olive)] {
                let response = try await T.get(client, uri, session: session)
                let csv = String(buffer: response.body)
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/csv") == true, "\(uri): \(csv)")
                #expect(csv.hasPrefix("recorded_at,app,store,") && csv.contains(",9300,9300,") && csv.contains(",999,USD,"), "\(csv)")
                #expect(!csv.contains("ada@example.com"))
            }
            // Another organisation's member, support staff, an unknown kind and a bad day are refused.
            #expect(try await T.get(client, "/developer/exports?kind=purchases&\(query)", session: riva).status == .notFound)
            #expect(try await T.get(client, "/admin/exports?kind=purchases&\(query)", session: sam).status == .forbidden)
            #expect(try await T.get(client, "/developer/exports?kind=refunds&\(query)", session: mia).status == .notFound)
            #expect(try await T.get(client, "/developer/exports?kind=events&app=\(T.acmeCatalog)&from=yesterday&to=\(today)&format=csv",
                                    session: mia).status == .badRequest)
        }
    }
}
