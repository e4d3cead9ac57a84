import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SoukCore
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The console's App Store actions against the fake App Store Server API, on both databases: an
/// operator extends a customer's subscription (support may not; the refusal is audited), and any
/// staff member looks up an order id.
@Suite struct AppleConsoleTests {
    typealias Fixture = CommercePurchaseFixture

    static func staff(_ fixture: Fixture, _ email: String, _ role: AccountRole) async throws -> String {
        let account = try await fixture.runtime.catalog.createAccount(email: email, passwordHash: try PasswordHashing.hash(OAuthTests.password))
        account.role = role
        try await account.save(on: fixture.runtime.database.db)
        return try #require(try await WebAccountTests.webSignIn(fixture.client, email: email))
    }

    @Test(arguments: TestBackend.available)
    func anOperatorExtendsACustomersSubscriptionAndSupportMayNot(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            let transaction = try await AppleOperationsServerTests.subscribe(fixture, fake, fixture.alice)
            let alice = fixture.alice.account.uuidString.lowercased()
            let support = try await Self.staff(fixture, "sue@example.com", .support)
            let refused = try await AdminConsoleTests.post(fixture.client, "/admin/people/\(alice)/extend-subscriptions", session: support,
                                                           ["app": Fixture.app, "days": "7", "reason": "3"])
            #expect(refused.status == .forbidden)
            #expect(try await AuditLog(database: fixture.runtime.database).list(action: "console.refused").first?.after?
                .contains("extend-subscriptions") == true)

            let olive = try await Self.staff(fixture, "olive@example.com", .operator)
            let page = String(buffer: try await AdminConsoleTests.get(fixture.client, "/admin/people/\(alice)", session: olive).body)
            #expect(page.contains("Extend App Store subscriptions"))
            let done = try await AdminConsoleTests.post(fixture.client, "/admin/people/\(alice)/extend-subscriptions", session: olive,
                                                        ["app": Fixture.app, "days": "7", "reason": "3"])
            #expect(done.status == .ok)
            #expect(String(buffer: done.body).contains("com.example.reader.monthly renews"))
            let expected = try #require(transaction.expiresDate).addingTimeInterval(7 * 86_400)
            let expires = try #require(try await AppleOperationsServerTests.expiry(fixture, fixture.alice))
            #expect(abs(expires.timeIntervalSince(expected)) < 0.01)
            let audit = try await AuditLog(database: fixture.runtime.database).list(action: "subscriptions.extend")
            #expect(audit.first?.actor == "olive@example.com")

            let bad = try await AdminConsoleTests.post(fixture.client, "/admin/people/\(alice)/extend-subscriptions", session: olive,
                                                       ["app": Fixture.app, "days": "120", "reason": "3"])
            #expect(bad.status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func staffLookUpAnOrderId(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            let transaction = try await AppleOperationsServerTests.subscribe(fixture, fake, fixture.alice)
            fake.addOrder("MK5TTTVWJH", transactionIds: [transaction.transactionId])
            let support = try await Self.staff(fixture, "sue@example.com", .support)
            let found = try await AdminConsoleTests.get(fixture.client, "/admin/app-store-orders?order=MK5TTTVWJH&app=\(Fixture.app)", session: support)
            #expect(found.status == .ok)
            let page = String(buffer: found.body)
            #expect(page.contains(transaction.transactionId) && page.contains("alice@example.com")
                    && page.contains("/admin/people/\(fixture.alice.account.uuidString.lowercased())"))
            let unknown = String(buffer: try await AdminConsoleTests.get(fixture.client, "/admin/app-store-orders?order=ZZZZ&app=\(Fixture.app)",
                                                                          session: support).body)
            #expect(unknown.contains("Apple knows no such order."))
            let people = String(buffer: try await AdminConsoleTests.get(fixture.client, "/admin/people", session: support).body)
            #expect(people.contains("App Store order id"))
        }
    }
}
