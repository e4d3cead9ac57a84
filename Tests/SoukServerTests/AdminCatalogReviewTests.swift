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

/// The console's catalog editor takes up to 1 MiB of catalog, says `413` over it, and applies
/// exactly the text reviewed (the review keeps its digest); the dashboard draws its revenue chart
/// before any sale. On both databases.
@Suite struct AdminCatalogReviewTests {
    static let app = CommerceCatalogSamples.readerApp

    /// The review id the review page carries to the apply step.
    static func reviewID(in html: String) -> String? {
        guard let range = html.range(of: #"name="review" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// An audit entry's `before` or `after` object.
    static func object(_ json: String?) throws -> [String: String] {
        try #require(try JSONSerialization.jsonObject(with: Data((json ?? "{}").utf8)) as? [String: String])
    }

    /// The reader catalog with the monthly plan at `cents` US cents (and its euro price kept).
    static func catalogText(monthlyAt cents: Int) -> String {
        var catalog = CommerceCatalogSamples.reader
        catalog.products[0].prices[0] = Price(currency: "USD", amount: cents)
        return CatalogFile.encode(catalog)
    }

    /// Reviews `text` as `session`; returns the review id of the page.
    static func review(_ client: any TestClientProtocol, _ session: String, _ text: String) async throws -> String {
        let page = try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/review", session: session, ["catalog": text])
        #expect(page.status == .ok)
        return try #require(reviewID(in: String(buffer: page.body)))
    }

    static func apply(_ client: any TestClientProtocol, _ session: String, _ text: String, review: String) async throws -> TestResponse {
        try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/apply", session: session, ["catalog": text, "review": review])
    }

    @Test(arguments: TestBackend.available)
    func applyingTakesTheReviewOnceAndOnlyWithTheReviewedText(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let otto = try await runtime.catalog.createAccount(email: "otto@example.com", passwordHash: try PasswordHashing.hash(AdminConsoleTests.password))
            otto.role = .operator
            try await otto.save(on: runtime.database.db)
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let ottoSession = try #require(try await WebAccountTests.webSignIn(client, email: "otto@example.com"))
            let revision = try #require(try await runtime.commerceCatalogs.store.revision(app: Self.app))
            let reviewed = Self.catalogText(monthlyAt: 549)

            // Another text under the review: refused, nothing applied, and the review is spent.
            let review = try await Self.review(client, olive, reviewed)
            let changed = try await Self.apply(client, olive, Self.catalogText(monthlyAt: 1), review: review)
            #expect(changed.status == .conflict)
            #expect(String(buffer: changed.body).contains("not the text you reviewed"))
            #expect(try await Self.apply(client, olive, reviewed, review: review).status == .conflict)
            // No review, or another operator's: refused.
            #expect(try await Self.apply(client, olive, reviewed, review: "").status == .conflict)
            let ottos = try await Self.review(client, ottoSession, reviewed)
            #expect(try await Self.apply(client, olive, reviewed, review: ottos).status == .conflict)
            #expect(try await runtime.commerceCatalogs.store.revision(app: Self.app) == revision)

            // The reviewed text, with the CRLF line breaks a browser sends, is applied once.
            let fresh = try await Self.review(client, olive, reviewed)
            let applied = try await Self.apply(client, olive, reviewed.replacingOccurrences(of: "\n", with: "\r\n"), review: fresh)
            #expect(applied.status == .seeOther)
            let state = try #require(try await runtime.commerceCatalogs.store.state(app: Self.app))
            #expect(state.revision == revision + 1 && state.catalog.products[0].prices[0] == Price(currency: "USD", amount: 549))
            #expect(try await Self.apply(client, olive, reviewed, review: fresh).status == .conflict)

            // A review of a catalog that moved on since is stale.
            let stale = try await Self.review(client, olive, Self.catalogText(monthlyAt: 649))
            _ = try await runtime.commerceCatalogs.apply(try CatalogFile.parse(Self.catalogText(monthlyAt: 599)))
            let moved = try await Self.apply(client, olive, Self.catalogText(monthlyAt: 649), review: stale)
            #expect(moved.status == .conflict)
            #expect(String(buffer: moved.body).contains("changed since you reviewed it"))
            #expect(try await runtime.commerceCatalogs.store.state(app: Self.app)?.catalog.products[0].prices[0].amount == 599)
        }
    }

    @Test(arguments: TestBackend.available)
    func theEditorTakesACatalogUpTo1MiBAndSays413OverIt(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            // Whitespace between tokens pads a valid catalog to any size.
            func padded(to size: Int) -> String {
                let text = Self.catalogText(monthlyAt: 549)
                return "{" + String(repeating: " ", count: size - text.utf8.count) + text.dropFirst()
            }
            let large = padded(to: 900 << 10)
            let review = try await AdminConsoleTests.post(client, "/admin/catalog/\(Self.app)/review", session: olive, ["catalog": large])
            #expect(review.status == .ok)
            let reviewHTML = String(buffer: review.body)
            #expect(reviewHTML.contains("Apply these changes") && reviewHTML.contains("reader.monthly"))

            for size in [(1 << 20) + 1, 1_300_000] {  // a text over 1 MiB; a form over what 1 MiB can encode to
                let refused = try await AdminConsoleTests.post(client, "/admin/catalog/\(Self.app)/review", session: olive, ["catalog": padded(to: size)])
                #expect(refused.status == .contentTooLarge)
                let html = String(buffer: refused.body)
                #expect(html.contains("larger than 1 MiB") && html.contains("Nothing was reviewed or applied"))
                #expect(!html.contains("expired"))
            }
            let product = try await AdminConsoleTests.post(client, "/admin/catalog/\(Self.app)/products/reader.monthly/review", session: olive,
                                                           ["product": String(repeating: " ", count: (1 << 20) + 1) + "{}"])
            #expect(product.status == .contentTooLarge)
            #expect(try await runtime.commerceCatalogs.store.revision(app: Self.app) == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func theDashboardDrawsTheRevenueChartWithItsTableBeforeAnySale(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, _ in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let html = String(buffer: try await AdminConsoleTests.get(client, "/admin", session: olive).body)
            for chart in ["licenses-issued", "license-requests", "license-failures", "active-subscriptions", "revenue"] {
                #expect(html.contains("<title id=\"chart-\(chart)-title\">"), "\(chart)")
                #expect(html.contains("<table id=\"table-\(chart)\">"), "\(chart)")
            }
            #expect(html.contains("Revenue, ") && html.contains("total 0 per day"))  // the <desc>
            #expect(html.contains("No sales in these 30 days"))
        }
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            try await runtime.catalog.createApp(AppModel(appleItemId: 6_500_000_002, bundleId: "org.example.paid", name: "Paid App"))
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let orders = MarketplaceOrderStore(database: runtime.database)
            let order = try await orders.openOrder(account: ada, appleItemId: 6_500_000_002, price: Price(currency: "USD", amount: 299),
                                                   environment: .production, processor: "development").order
            _ = try await orders.markPaid(order.id, amount: 299)
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let html = String(buffer: try await AdminConsoleTests.get(client, "/admin", session: olive).body)
            #expect(html.contains("<title id=\"chart-revenue-in-usd-title\">Revenue in USD</title>"))
            #expect(html.contains("<td>Paid App</td><td>2.99 USD</td>"))
            #expect(!html.contains("No sales in these 30 days") && !html.contains("chart-revenue-title"))
        }
    }
}
