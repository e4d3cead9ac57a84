import Foundation
@testable import SoukApp
import SoukCore
import SoukIntegrations
@testable import SoukServer
@testable import SoukStore
import SoukTestSupport
import Testing

/// The operator's App Store actions against the fake App Store Server API, on both databases:
/// a customer's renewal date extended (the entitlement moves at once, an operator event, audited),
/// every active subscriber extended (the server follows Apple until complete, then moves them),
/// and an order id leading to its account.
@Suite struct AppleOperationsServerTests {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app
    static let day: TimeInterval = 86_400

    static func subscribe(_ fixture: Fixture, _ fake: FakeAppStoreServerAPI, _ person: Fixture.Person) async throws -> AppleTestTransaction {
        let transaction = fixture.transaction("reader.monthly", purchased: Date().addingTimeInterval(-Self.day))
        fake.add(transaction, account: person.email)
        #expect(try await fixture.buy("reader.monthly", as: person, transaction).status == .created)
        return transaction
    }

    static func expiry(_ fixture: Fixture, _ person: Fixture.Person) async throws -> Date? {
        try await fixture.runtime.purchases.list(account: person.account, app: app).last?.expiresDate
    }

    @Test(arguments: TestBackend.available)
    func extendingACustomersSubscriptionMovesTheEntitlementAtOnce(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            let transaction = try await Self.subscribe(fixture, fake, fixture.alice)
            let operations = fixture.runtime.appleOperations(verifiers: try fixture.runtime.storeVerifiers())
            let alice = try await fixture.runtime.catalog.people.requireAccount(email: fixture.alice.email)
            let bob = try await fixture.runtime.catalog.people.requireAccount(email: fixture.bob.email)
            let outcomes = try await operations.extend(app: Self.app, person: alice, days: 7, reason: 3, actor: .cli(user: "test"))
            let expected = try #require(transaction.expiresDate).addingTimeInterval(7 * Self.day)
            guard case .extended(let date) = try #require(outcomes.first).result else {
                Issue.record("not extended: \(outcomes)")
                return
            }
            #expect(abs(date.timeIntervalSince(expected)) < 0.01)
            #expect(abs(try #require(try await Self.expiry(fixture, fixture.alice)).timeIntervalSince(expected)) < 0.01)
            let events = try await CommerceEventStore(database: fixture.runtime.database).list(account: fixture.alice.account, app: Self.app, limit: 10)
            #expect(events.contains { $0.source == .operator })
            let audit = try await AuditLog(database: fixture.runtime.database).list(action: "subscriptions.extend")
            #expect(audit.count == 1 && audit.first?.actor == "cli:test" && audit.first?.after?.contains("extended to") == true)
            let rows = try await AppleRenewalExtensionStore(database: fixture.runtime.database).requests(app: Self.app)
            #expect(rows.map(\.status) == [.complete] && rows.first?.kind == .single)

            // Bad input is refused before Apple is asked; an account without subscriptions too.
            await #expect(throws: AppleOperations.Refusal.self) {
                _ = try await operations.extend(app: Self.app, person: alice, days: 91, reason: 1, actor: .cli(user: "test"))
            }
            await #expect(throws: AppleOperations.Refusal.self) {
                _ = try await operations.extend(app: Self.app, person: bob, days: 3, reason: 1, actor: .cli(user: "test"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aMassExtensionIsFollowedUntilCompleteThenEveryoneMoves(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            fake.completeMassExtensionsWhenAsked()
            let alice = try await Self.subscribe(fixture, fake, fixture.alice)
            let bob = try await Self.subscribe(fixture, fake, fixture.bob)
            let operations = fixture.runtime.appleOperations(verifiers: try fixture.runtime.storeVerifiers())
            let row = try await operations.extendAll(app: Self.app, product: "reader.monthly", days: 3, reason: 1, storefronts: ["USA"],
                                                     environment: .production, actor: .cli(user: "test"))
            #expect(row.status == .pending && row.productId == "com.example.reader.monthly")
            #expect(fake.massExtensions.first?.requestIdentifier == row.requestIdentifier)
            // The server's extension worker reads Apple's status, then moves both subscriptions.
            try await eventually("the mass extension completes") {
                try await AppleRenewalExtensionStore(database: fixture.runtime.database).request(id: row.id)?.status == .complete
            }
            let done = try #require(try await AppleRenewalExtensionStore(database: fixture.runtime.database).request(id: row.id))
            #expect(done.succeededCount == 2 && done.movedCount == 2)
            for (person, transaction) in [(fixture.alice, alice), (fixture.bob, bob)] {
                let expected = try #require(transaction.expiresDate).addingTimeInterval(3 * Self.day)
                #expect(abs(try #require(try await Self.expiry(fixture, person)).timeIntervalSince(expected)) < 0.01)
            }
            #expect(try await AuditLog(database: fixture.runtime.database).list(action: "subscriptions.extend_mass").count == 1)

            await #expect(throws: AppleOperations.Refusal.self) {
                _ = try await operations.extendAll(app: Self.app, product: "reader.coins.100", days: 3, reason: 1, storefronts: nil,
                                                   environment: .production, actor: .cli(user: "test"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func anOrderIdLeadsToTheAccount(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            let transaction = try await Self.subscribe(fixture, fake, fixture.alice)
            let unreported = fixture.transaction("reader.book.1")
            fake.add(unreported)
            fake.addOrder("MK5TTTVWJH", transactionIds: [transaction.transactionId, unreported.transactionId])
            let operations = fixture.runtime.appleOperations(verifiers: try fixture.runtime.storeVerifiers())
            let found = try await operations.findOrder(app: Self.app, orderId: "MK5TTTVWJH")
            #expect(found.valid && found.unverified == 0 && found.accounts == [fixture.alice.account])
            #expect(found.transactions.map(\.transactionId) == [transaction.transactionId, unreported.transactionId])
            #expect(found.transactions.first?.purchase?.status == .granted && found.transactions.last?.purchase == nil)

            let unknown = try await operations.findOrder(app: Self.app, orderId: "ZZZZZZZZZZ")
            #expect(!unknown.valid && unknown.transactions.isEmpty)
            await #expect(throws: AppleOperations.Refusal.self) { _ = try await operations.findOrder(app: Self.app, orderId: "not/an order") }
        }
    }
}
