import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing
import SoukApp

/// Monthly payout statements from the marketplace's orders, on both databases: sales by the month
/// they were paid in and refunds by the month they were recorded in (UTC month boundaries), per
/// currency, only production orders of the organisation's own apps, the organisation's own
/// commission over the server's, and who may read which statement.
@Suite struct PayoutStatementsTests {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// Acme (the server's 15 %) owns apps 11 and 12, Globex (its own 10 %) app 21; app 31 is the marketplace's.
    static func sell(database: SoukDatabase, catalog: CatalogStore) async throws {
        let developers = DeveloperDirectory(database: database)
        _ = try await developers.create(name: "Acme", id: "acme")
        _ = try await developers.create(name: "Globex", id: "globex", commissionPercent: 10)
        for (item, developer) in [(11, "acme"), (12, "acme"), (21, "globex"), (31, nil)] as [(UInt64, String?)] {
            try await catalog.createApp(AppModel(appleItemId: item, bundleId: "org.example.app\(item)", name: "App \(item)", access: .public))
            if let developer { #expect(try await developers.setAppDeveloper(appleItemId: item, developer: developer)) }
        }
        let clock = TestClock(date("2026-10-01T00:00:00Z"))
        let orders = MarketplaceOrderStore(database: database, now: { clock.now })
        var buyers = 0
        func at(_ text: String) { clock.advance(date(text).timeIntervalSince(clock.now)) }
        /// One order of `item`, paid at `paid` (or left open), refunded (`refund` amount) at `refunded`.
        func order(_ item: UInt64, _ currency: String, _ amount: Int, paid: String?, refund: (Int, String, full: Bool)? = nil,
                   environment: CommerceEnvironment = .production) async throws {
            buyers += 1
            let buyer = try await catalog.createAccount(email: "buyer\(buyers)@example.com", passwordHash: "x").requireID()
            at("2026-10-01T00:00:00Z")
            let (open, _) = try await orders.openOrder(account: buyer, appleItemId: item, price: Price(currency: currency, amount: amount),
                                                       environment: environment, processor: "stripe")
            guard let paid else { return }
            at(paid)
            #expect(try await orders.markPaid(open.id, amount: amount, paymentRef: "pi_\(buyers)") != nil)
            guard let refund else { return }
            at(refund.1)
            #expect(try await orders.refund(processor: "stripe", paymentRef: "pi_\(buyers)", amount: refund.0, full: refund.full) != nil)
        }
        try await order(11, "USD", 999, paid: "2026-11-01T00:00:00Z")                  // the first instant of November
        try await order(12, "USD", 499, paid: "2026-11-30T23:59:59Z")                  // the last second of November
        try await order(11, "USD", 999, paid: "2026-12-01T00:00:00Z")                  // December's
        try await order(12, "USD", 999, paid: "2026-10-31T23:59:59Z", refund: (999, "2026-11-15T12:00:00Z", full: true))  // sold in October, refunded in November
        try await order(11, "EUR", 899, paid: "2026-11-10T08:00:00Z", refund: (300, "2026-11-20T08:00:00Z", full: false))  // partly refunded
        try await order(11, "EUR", 500, paid: "2026-11-11T08:00:00Z", environment: .sandbox)  // a test purchase
        try await order(12, "GBP", 700, paid: nil)                                     // never paid
        try await order(31, "USD", 5000, paid: "2026-11-12T08:00:00Z")                 // the marketplace's own app
        try await order(21, "USD", 1000, paid: "2026-11-05T08:00:00Z")                 // Globex's
    }

    @Test(arguments: TestBackend.available)
    func statementsCountSalesAndRefundsByUTCMonthPerCurrencyLessCommission(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            try await Self.sell(database: fixture.database, catalog: fixture.catalog)
            let statements = PayoutStatements(database: fixture.database, defaultCommissionPercent: 15)
            let cli = SoukActor.cli(user: "tester")
            let november = try await statements.statement(actor: cli, developerID: "acme", month: "2026-11")
            #expect(november.commissionPercent == 15 && november.developerName == "Acme")
            #expect(november.lines == [
                // 899 − 300 = 599; 15 % = 89.85 → 90.
                PayoutLine(currency: "EUR", sales: 1, gross: 899, refundCount: 1, refunds: 300, commissionPercent: 15),
                // 999 + 499 − 999 = 499; 15 % = 74.85 → 75.
                PayoutLine(currency: "USD", sales: 2, gross: 1498, refundCount: 1, refunds: 999, commissionPercent: 15),
            ])
            #expect(november.lines.map(\.commission) == [90, 75] && november.lines.map(\.payout) == [509, 424])
            #expect(november.csv == """
                month,developer,currency,sales,gross,refunds_count,refunds,net,commission_percent,commission,payout\r
                2026-11,acme,EUR,1,8.99,1,3.00,5.99,15,0.90,5.09\r
                2026-11,acme,USD,2,14.98,1,9.99,4.99,15,0.75,4.24\r

                """)
            let october = try await statements.statement(actor: cli, developerID: "acme", month: "2026-10")
            #expect(october.lines == [PayoutLine(currency: "USD", sales: 1, gross: 999, refundCount: 0, refunds: 0, commissionPercent: 15)])
            let december = try await statements.statement(actor: cli, developerID: "acme", month: "2026-12")
            #expect(december.lines.map(\.gross) == [999])
            #expect(try await statements.statement(actor: cli, developerID: "acme", month: "2026-09").lines.isEmpty)

            // Globex's own commission; the marketplace's own app is on nobody's statement.
            let globex = try await statements.statement(actor: cli, developerID: "globex", month: "2026-11")
            #expect(globex.commissionPercent == 10)
            #expect(globex.lines.map(\.gross) == [1000] && globex.lines.map(\.commission) == [100] && globex.lines.map(\.payout) == [900])
            // Changing the organisation's commission changes its statements.
            #expect(try await DeveloperDirectory(database: fixture.database).setCommission(nil, developer: "globex"))
            #expect(try await statements.statement(actor: cli, developerID: "globex", month: "2026-11").lines.map(\.commission) == [150])
        }
    }

    @Test(arguments: TestBackend.available)
    func anOrganisationReadsOnlyItsOwnStatements(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            try await Self.sell(database: fixture.database, catalog: fixture.catalog)
            let statements = PayoutStatements(database: fixture.database, defaultCommissionPercent: 15)
            let support = SoukActor.staff(accountID: UUID(), email: "sam@example.com", role: .support)
            #expect(try await statements.statement(actor: support, developerID: "globex", month: "2026-11").lines.count == 1)
            let member = SoukActor.developerMember(accountID: UUID(), email: "dev@acme.example", developerID: "acme", role: .member)
            #expect(try await statements.statement(actor: member, developerID: "acme", month: "2026-11").lines.count == 2)
            await #expect(throws: PayoutStatements.Failure.notFound("globex")) {
                try await statements.statement(actor: member, developerID: "globex", month: "2026-11")
            }
            let reader = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: [.metricsRead])
            #expect(try await statements.statement(actor: reader, developerID: "acme", month: "2026-11").lines.count == 2)
            let uploader = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: [.packagesWrite])
            await #expect(throws: PayoutStatements.Failure.notFound("acme")) {
                try await statements.statement(actor: uploader, developerID: "acme", month: "2026-11")
            }
            await #expect(throws: PayoutStatements.Failure.notFound("nobody")) {
                try await statements.statement(actor: .cli(user: "tester"), developerID: "nobody", month: "2026-11")
            }
            for month in ["2026-13", "2026-1", "26-11", "2026-11-01", ""] {
                await #expect(throws: PayoutStatements.Failure.invalidMonth(month)) {
                    try await statements.statement(actor: .cli(user: "tester"), developerID: "acme", month: month)
                }
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func theConsoleShowsAStatementAndItsCSVToStaff(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: { runtime, paths in
            try await AdminConsoleTests.prepare(runtime, paths)
            try await Self.sell(database: runtime.database, catalog: runtime.catalog)
        }) { client, _ in
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let page = try await AdminConsoleTests.get(client, "/admin/developers/acme/statements/2026-11", session: sam)
            let html = String(buffer: page.body)
            #expect(page.status == .ok && html.contains("Statement of Acme, 2026-11") && html.contains("5.09 EUR") && html.contains("4.24 USD"))
            #expect(html.contains("/admin/developers/acme/statements/2026-11/csv") && html.contains("/admin/developers/acme/statements/2026-10"))
            let csv = try await AdminConsoleTests.get(client, "/admin/developers/acme/statements/2026-11/csv", session: sam)
            #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition] == #"attachment; filename="acme-2026-11.csv""#)
            #expect(String(buffer: csv.body).hasSuffix("2026-11,acme,USD,2,14.98,1,9.99,4.99,15,0.75,4.24\r\n"))
            #expect(try await AdminConsoleTests.get(client, "/admin/developers/nobody/statements/2026-11", session: sam).status == .notFound)
            #expect(try await AdminConsoleTests.get(client, "/admin/developers/acme/statements/2026-13", session: sam).status == .notFound)
            // Signed out (or a customer): no statement.
            let anonymous = try await client.execute(uri: "/admin/developers/acme/statements/2026-11", method: .get)
            #expect(anonymous.status != .ok)
        }
    }
}
