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

/// The developer console's webhooks (with their deliveries), payout statements and paid-app sales:
/// only of the member's own organisation, buyers by account token, on both databases.
@Suite struct DeveloperConsoleSalesTests {
    typealias T = DeveloperConsoleTests

    @Test(arguments: TestBackend.available)
    func aMemberAddsAWebhookSeesItsDeliveriesAndDeletesIt(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            let page = "/developer/catalog/\(T.acmeCatalog)/webhooks"
            let store = WebhookStore(database: runtime.database)

            // A bad URL or a short secret is a 400 that adds nothing.
            for fields in [["url": "not a url"], ["url": "https://hooks.example.com/souk", "secret": "short"]] {
                let refused = try await T.post(client, page, session: mia, fields)
                #expect(refused.status == .badRequest, "\(fields)")
                #expect(String(buffer: refused.body).contains(#"role="alert""#))
            }
            #expect(try await store.endpoints(app: T.acmeCatalog).isEmpty)

            // Without a secret the console makes one and shows it once.
            let added = try await T.post(client, page, session: mia, ["url": "https://hooks.example.com/souk"])
            #expect(added.status == .ok)
            let html = String(buffer: added.body)
            let endpoint = try #require(try await store.endpoints(app: T.acmeCatalog).first)
            #expect(html.contains(#"id="new-secret""#) && html.contains("https://hooks.example.com/souk"))
            #expect(!String(buffer: try await T.get(client, page, session: mia).body).contains(#"id="new-secret""#))

            // An event of the catalog after the webhook was added is a delivery the page lists.
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            try await Self.purchase(runtime, account: ada, transaction: "3000000011")
            try await store.enqueue()
            let delivery = try #require(try await store.deliveries(app: T.acmeCatalog).first)
            let listed = String(buffer: try await T.get(client, page, session: mia).body)
            #expect(listed.contains("Latest deliveries") && listed.contains(delivery.eventId.uuidString.lowercased()))
            #expect(listed.contains(delivery.eventType) && !listed.contains("ada@example.com"))

            // Redelivery is the one operation of the API, the consoles and the CLI: the owner's
            // member and the operator's side queue it again; the other organisation's member and
            // an unknown event are "not found", and nothing is queued or audited for them.
            let operations = DeveloperOperations(runtime: runtime)
            let rival = SoukActor.developerMember(accountID: UUID(), email: "riva@example.com", developerID: "rival", role: .owner)
            let acme = SoukActor.developerMember(accountID: UUID(), email: "mia@example.com", developerID: "acme", role: .member)
            for (actor, event) in [(rival, delivery.eventId), (acme, UUID())] {
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.redeliverWebhookEvent(actor: actor, app: T.acmeCatalog, event: event)
                }
            }
            #expect(try await operations.redeliverWebhookEvent(actor: acme, app: T.acmeCatalog, event: delivery.eventId) == 1)
            #expect(try await operations.redeliverWebhookEvent(actor: .cli(user: "ops"), app: T.acmeCatalog, event: delivery.eventId) == 1)
            #expect(try await AuditLog(database: runtime.database).list(action: "webhook.redeliver").map(\.actor).sorted()
                    == ["cli:ops", "mia@example.com"])

            // The other organisation reaches none of it.
            let delete = "/developer/webhooks/\(endpoint.id.uuidString.lowercased())/delete"
            #expect(try await T.get(client, page, session: riva).status == .notFound)
            #expect(try await T.post(client, page, session: riva, ["url": "https://rival.example.com/"]).status == .notFound)
            #expect(try await T.post(client, delete, session: riva).status == .notFound)
            #expect(try await store.endpoints(app: T.acmeCatalog).count == 1)

            let deleted = try await T.post(client, delete, session: mia)
            #expect(deleted.status == .seeOther && deleted.headers[.location] == page + "?done=deleted")
            #expect(try await store.endpoints(app: T.acmeCatalog).isEmpty)
            let actions = try await AuditLog(database: runtime.database).list().filter { $0.actor == "mia@example.com" }.map(\.action)
            #expect(actions.sorted() == ["webhook.add", "webhook.redeliver", "webhook.remove"])
        }
    }

    /// A verified purchase of the Acme catalog's reader pass by `account`.
    static func purchase(_ runtime: SoukRuntime, account: UUID, transaction: String) async throws {
        let catalog = try #require(try await runtime.commerceCatalogs.state(app: T.acmeCatalog))
        let product = try #require(catalog.product("reader.pass.30d"))
        let sku = try #require(product.skus[.appleStore])
        let claim = PurchaseClaim(store: .appleStore, app: T.acmeCatalog, storeProductId: sku, transactionId: transaction, receipt: "-")
        let verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction,
                                        storeProductId: sku, type: product.type, purchaseDate: Date().addingTimeInterval(-60),
                                        quantity: 1, environment: .production, app: T.acmeCatalog, signedDate: Date())
        _ = try await runtime.purchases.record(PurchaseIntake(account: account, product: product, claim: claim), verified: verified,
                                               environment: .production, policy: .transfer, catalog: catalog)
    }

    /// `PayoutStatementsTests.sell` with a member for each organisation: Dev of Acme, Gil of Globex.
    static func prepareSales(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AdminConsoleTests.prepare(runtime, paths)
        try await PayoutStatementsTests.sell(database: runtime.database, catalog: runtime.catalog)
        let hash = try PasswordHashing.hash(AdminConsoleTests.password)
        let directory = DeveloperDirectory(database: runtime.database)
        for (email, developer) in [("dev@example.com", "acme"), ("gil@example.com", "globex")] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            _ = try await directory.addMember(developer: developer, accountID: try account.requireID(), role: .member)
        }
    }

    @Test(arguments: TestBackend.available)
    func aMemberReadsTheirOwnStatementsAndSalesOnly(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepareSales) { client, runtime in
            let dev = try #require(try await WebAccountTests.webSignIn(client, email: "dev@example.com"))
            let gil = try #require(try await WebAccountTests.webSignIn(client, email: "gil@example.com"))

            // The month picker lands on the month asked for; without one (or a bad one), this month.
            let picked = try await T.get(client, "/developer/statements?month=2026-11", session: dev)
            #expect(picked.status == .seeOther && picked.headers[.location] == "/developer/statements/2026-11")
            let thisMonth = "/developer/statements/\(StatementMonth(containing: Date()))"
            #expect(try await T.get(client, "/developer/statements", session: dev).headers[.location] == thisMonth)
            #expect(try await T.get(client, "/developer/statements?month=2026-13", session: dev).headers[.location] == thisMonth)

            // The operator's statement, inside the developer console, of their own organisation.
            let page = try await T.get(client, "/developer/statements/2026-11", session: dev)
            let html = String(buffer: page.body)
            #expect(page.status == .ok && html.contains("Statement of Acme, 2026-11") && html.contains("5.09 EUR") && html.contains("4.24 USD"))
            #expect(html.contains(#"name="month""#) && html.contains("/developer/statements/2026-11/csv") && html.contains("/developer/statements/2026-10"))
            #expect(!html.contains("Globex") && html.contains(#"aria-label="Developer console""#))
            let csv = try await T.get(client, "/developer/statements/2026-11/csv", session: dev)
            #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition] == #"attachment; filename="acme-2026-11.csv""#)
            #expect(String(buffer: csv.body).hasSuffix("2026-11,acme,USD,2,14.98,1,9.99,4.99,15,0.75,4.24\r\n"))
            #expect(try await T.get(client, "/developer/statements/2026-13", session: dev).status == .notFound)
            let globex = String(buffer: try await T.get(client, "/developer/statements/2026-11", session: gil).body)
            #expect(globex.contains("Statement of Globex, 2026-11") && globex.contains("9.00 USD") && !globex.contains("Acme"))

            // Paid-app sales: their own apps' orders, buyers by account token in the app, never by email.
            let sales = String(buffer: try await T.get(client, "/developer/sales", session: dev).body)
            let buyer = try await runtime.catalog.requireAccount(email: "buyer1@example.com").requireID()
            let token = try await AccountTokenStore(database: runtime.database).token(account: buyer, app: "org.example.app11")
            #expect(sales.contains("App 11") && sales.contains("App 12") && sales.contains(token.uuidString.lowercased()))
            #expect(sales.contains("9.99 USD") && sales.contains("3.00 EUR") && sales.contains("refunded"))
            #expect(!sales.contains("App 21") && !sales.contains("App 31") && !sales.contains("buyer1@example.com"))
            let other = String(buffer: try await T.get(client, "/developer/sales", session: gil).body)
            #expect(other.contains("App 21") && !other.contains("App 11") && !other.contains(token.uuidString.lowercased()))
        }
    }
}
