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

/// The console's mass renewal-date extension (`/admin/catalog/<app>/extensions`) against the fake
/// App Store Server API, on both databases: support is refused (audited, nothing sent), bad input
/// is shown in the form with nothing recorded, the form asks to confirm before anything is sent,
/// and a confirmed request is sent once through `AppleOperations`, audited as the operator, and
/// its status and Apple's counts show on the page.
@Suite struct AdminMassExtensionTests {
    typealias Fixture = CommercePurchaseFixture
    static let path = "/admin/catalog/\(Fixture.app)/extensions"

    static func form(_ fields: [String: String] = [:]) -> [String: String] {
        ["product": "reader.monthly", "days": "5", "reason": "3", "storefronts": "", "environment": "Production"]
            .merging(fields) { $1 }
    }

    static func rows(_ fixture: Fixture) async throws -> [AppleRenewalExtension] {
        try await AppleRenewalExtensionStore(database: fixture.runtime.database).requests(app: Fixture.app)
    }

    @Test(arguments: TestBackend.available)
    func supportMayNotExtendEveryone(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            let support = try await AppleConsoleTests.staff(fixture, "sue@example.com", .support)
            let page = String(buffer: try await AdminConsoleTests.get(fixture.client, Self.path, session: support).body)
            #expect(page.contains("Renewal-date extensions of") && !page.contains("mass-product"))
            let refused = try await AdminConsoleTests.post(fixture.client, Self.path, session: support, Self.form(["confirmed": "yes"]))
            #expect(refused.status == .forbidden)
            let audit = try await AuditLog(database: fixture.runtime.database).list(action: "console.refused")
            #expect(audit.first?.target == "app:\(Fixture.app)" && audit.first?.after?.contains("extend-subscriptions") == true)
            #expect(try await Self.rows(fixture).isEmpty && fake.massExtensions.isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func badInputIsShownInTheFormAndNothingIsWritten(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            let olive = try await AppleConsoleTests.staff(fixture, "olive@example.com", .operator)
            let cases: [([String: String], String)] = [
                (["days": "120"], "1 to 90"), (["days": "soon"], "Give the days"), (["reason": "7"], "reason must be"),
                (["storefronts": "usa"], "ISO 3166-1 alpha-3"), (["product": "reader.coins.100"], "no auto-renewable subscription"),
                (["environment": "Staging"], "Production or Sandbox"),
            ]
            for (fields, message) in cases {
                let answer = try await AdminConsoleTests.post(fixture.client, Self.path, session: olive, Self.form(fields).merging(["confirmed": "yes"]) { $1 })
                #expect(answer.status == .badRequest, "\(fields)")
                let page = String(buffer: answer.body)
                #expect(page.contains("role=\"alert\"") && page.contains(message), "\(fields)")
                #expect(page.contains("id=\"mass-product\""), "the form is shown again: \(fields)")
            }
            #expect(try await Self.rows(fixture).isEmpty && fake.massExtensions.isEmpty)
            #expect(try await AuditLog(database: fixture.runtime.database).list(action: "subscriptions.extend_mass").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorConfirmsAndThePageShowsTheRequestUntilComplete(backend: TestBackend) async throws {
        try await AppleConsumptionServerTests.with(backend, apple: { _ in }) { fixture, fake in
            // Apple completes the request when the worker first asks for its status.
            fake.completeMassExtensionsWhenAsked()
            let transaction = try await AppleOperationsServerTests.subscribe(fixture, fake, fixture.alice)
            let olive = try await AppleConsoleTests.staff(fixture, "olive@example.com", .operator)
            let catalog = String(buffer: try await AdminConsoleTests.get(fixture.client, "/admin/catalog/\(Fixture.app)", session: olive).body)
            #expect(catalog.contains("href=\"\(Self.path)\""))
            let page = String(buffer: try await AdminConsoleTests.get(fixture.client, Self.path, session: olive).body)
            #expect(page.contains("id=\"mass-product\"") && page.contains("reader.monthly"))

            // The first post only shows what would be asked.
            let confirm = try await AdminConsoleTests.post(fixture.client, Self.path, session: olive, Self.form(["storefronts": "USA, CAN"]))
            #expect(confirm.status == .ok)
            let confirmPage = String(buffer: confirm.body)
            #expect(confirmPage.contains("Ask Apple to extend") && confirmPage.contains("com.example.reader.monthly")
                    && confirmPage.contains("name=\"confirmed\" value=\"yes\"") && confirmPage.contains("storefronts USA, CAN"))
            #expect(try await Self.rows(fixture).isEmpty && fake.massExtensions.isEmpty)

            let sent = try await AdminConsoleTests.post(fixture.client, Self.path, session: olive,
                                                        Self.form(["storefronts": "USA,CAN", "confirmed": "yes"]))
            #expect(sent.status == .seeOther)
            let location = try #require(sent.headers[.location])
            let row = try #require(try await Self.rows(fixture).first)
            #expect(location == "\(Self.path)?requested=\(row.requestIdentifier)")
            #expect(row.kind == .mass && row.requestedBy == "olive@example.com" && row.storefronts == ["USA", "CAN"] && row.extendByDays == 5)
            #expect(fake.massExtensions.map(\.requestIdentifier) == [row.requestIdentifier])
            let audit = try await AuditLog(database: fixture.runtime.database).list(action: "subscriptions.extend_mass")
            #expect(audit.count == 1 && audit.first?.actor == "olive@example.com")

            let requested = String(buffer: try await AdminConsoleTests.get(fixture.client, location, session: olive).body)
            #expect(requested.contains("role=\"status\"") && requested.contains("Asked Apple to extend every active subscriber")
                    && requested.contains(row.requestIdentifier))

            // The worker follows the request; once complete, the subscription moved and the page says so with Apple's counts.
            try await eventually("the mass extension completes") {
                try await AppleRenewalExtensionStore(database: fixture.runtime.database).request(id: row.id)?.status == .complete
            }
            let complete = String(buffer: try await AdminConsoleTests.get(fixture.client, Self.path, session: olive).body)
            #expect(complete.contains("<td>complete</td><td>1</td><td>0</td><td>1</td>"))
            let expected = try #require(transaction.expiresDate).addingTimeInterval(5 * 86_400)
            #expect(abs(try #require(try await AppleOperationsServerTests.expiry(fixture, fixture.alice)).timeIntervalSince(expected)) < 0.01)
        }
    }
}
