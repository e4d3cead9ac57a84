import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The paid-app sales a developer organisation reads: each buyer by their account token in the
/// app, the token the app already has or one made with the page, the same on every read.
@Suite struct PaidAppSalesTests {
    @Test(arguments: TestBackend.available)
    func buyersAreNamedByTheirTokenInEachAppMadeOnceWhenTheAppHasNone(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let developers = DeveloperDirectory(database: fixture.database)
            _ = try await developers.create(name: "Acme", id: "acme")
            for item in [11, 12, 21] as [UInt64] {
                try await fixture.catalog.createApp(AppModel(appleItemId: item, bundleId: "org.example.app\(item)", name: "App \(item)", access: .public))
            }
            #expect(try await developers.setAppDeveloper(appleItemId: 11, developer: "acme"))
            #expect(try await developers.setAppDeveloper(appleItemId: 12, developer: "acme"))
            let ada = try await fixture.catalog.createAccount(email: "ada@example.com", passwordHash: "x").requireID()
            let bob = try await fixture.catalog.createAccount(email: "bob@example.com", passwordHash: "x").requireID()
            let tokens = AccountTokenStore(database: fixture.database)
            // Ada's app asked for her token before she bought it; nobody asked for Bob's, nor Ada's in app 12.
            let adaIn11 = try await tokens.token(account: ada, app: "org.example.app11")
            let orders = MarketplaceOrderStore(database: fixture.database)
            for (buyer, item) in [(ada, 11), (ada, 12), (bob, 11), (bob, 21)] as [(UUID, UInt64)] {
                let (open, _) = try await orders.openOrder(account: buyer, appleItemId: item, price: Price(currency: "USD", amount: 499),
                                                           environment: .production, processor: "stripe")
                #expect(try await orders.markPaid(open.id, amount: 499) != nil)
            }

            let sales = try await PaidAppSales(database: fixture.database).sales(developer: "acme", limit: 50)
            #expect(sales.count == 3 && !sales.contains { $0.appleItemId == 21 })
            func token(_ buyer: UUID, _ item: UInt64) async throws -> UUID? {
                let order = try await orders.orders(account: buyer).first { $0.appleItemId == item }
                return sales.first { $0.orderId == order?.id }?.accountToken
            }
            #expect(try await token(ada, 11) == adaIn11)
            let adaIn12 = try await tokens.token(account: ada, app: "org.example.app12")
            let bobIn11 = try await tokens.token(account: bob, app: "org.example.app11")
            let (shownAdaIn12, shownBobIn11) = (try await token(ada, 12), try await token(bob, 11))
            #expect(shownAdaIn12 == adaIn12 && shownBobIn11 == bobIn11)
            #expect(Set([adaIn11, adaIn12, bobIn11]).count == 3)
            // Read again, the same tokens.
            let again = try await PaidAppSales(database: fixture.database).sales(developer: "acme", limit: 50)
            #expect(Set(again.map(\.accountToken)) == Set(sales.map(\.accountToken)))
        }
    }

    @Test(arguments: TestBackend.available)
    func manyTokensAreMadeTogetherAndKnownOnesKept(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let tokens = AccountTokenStore(database: fixture.database)
            #expect(try await tokens.tokens([]).isEmpty)
            let ada = try await fixture.catalog.createAccount(email: "ada@example.com", passwordHash: "x").requireID()
            let bob = try await fixture.catalog.createAccount(email: "bob@example.com", passwordHash: "x").requireID()
            let known = try await tokens.token(account: ada, app: "org.example.a")
            let holders: Set<AccountTokenStore.Holder> = [.init(account: ada, app: "org.example.a"), .init(account: ada, app: "org.example.b"),
                                                           .init(account: bob, app: "org.example.a")]
            let made = try await tokens.tokens(holders)
            #expect(made.count == 3 && made[.init(account: ada, app: "org.example.a")] == known)
            let adaInB = try await tokens.token(account: ada, app: "org.example.b")
            let bobInA = try await tokens.token(account: bob, app: "org.example.a")
            #expect(made[.init(account: ada, app: "org.example.b")] == adaInB && made[.init(account: bob, app: "org.example.a")] == bobInA)
            // Only what was asked for is made: Bob has no token in app b.
            let rows = try await fixture.database.sql.raw("SELECT COUNT(*) AS n FROM account_tokens").first()?.decode(column: "n", as: Int.self)
            #expect(rows == 3)
            let again = try await tokens.tokens(holders)
            #expect(again == made)
        }
    }
}
