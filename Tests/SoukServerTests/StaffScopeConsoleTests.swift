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

/// Every console action on a person passes SoukCore's `StaffScope`: only on a lower role, never on
/// one's own account; a refusal is 403, changes nothing and is audited (`console.refused`).
@Suite struct StaffScopeConsoleTests {
    /// AdminConsoleTests' ada (customer), sam (support) and olive (operator), with sue (support),
    /// otto (operator) and the marketplace's membership catalog.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AdminConsoleTests.prepare(runtime, paths)
        let hash = try PasswordHashing.hash(OAuthTests.password)
        for (email, role) in [("sue@example.com", AccountRole.support), ("otto@example.com", .operator)] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            account.role = role
            try await account.save(on: runtime.database.db)
        }
        _ = try await runtime.commerceCatalogs.apply(CheckoutTests.marketplace)
    }

    /// Posts `action` on `target` as `session`; expects a 403 and one `console.refused` entry naming the action.
    static func expectRefused(_ client: any TestClientProtocol, _ runtime: SoukRuntime, session: String, actor: String,
                              target: String, _ path: String, _ fields: [String: String] = [:], action: String,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let audit = AuditLog(database: runtime.database)
        let before = try await audit.list(action: "console.refused").count
        let answer = try await AdminConsoleTests.post(client, "/admin/people/\(target)/\(path)", session: session, fields)
        #expect(answer.status == .forbidden, "\(actor) \(path) on \(target)", sourceLocation: sourceLocation)
        let refusals = try await audit.list(action: "console.refused")
        #expect(refusals.count == before + 1, sourceLocation: sourceLocation)
        #expect(refusals.first?.actor == actor, sourceLocation: sourceLocation)
        #expect(refusals.first?.target == "account:\(target)", sourceLocation: sourceLocation)
        #expect(refusals.first?.after?.contains(#""action":"\#(action)""#) == true, sourceLocation: sourceLocation)
    }

    @Test(arguments: TestBackend.available)
    func supportCannotTouchAnOperatorOtherSupportOrItself(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let (samId, sueId, oliveId) = (try await AdminConsoleTests.id(runtime, "sam@example.com"),
                                           try await AdminConsoleTests.id(runtime, "sue@example.com"),
                                           try await AdminConsoleTests.id(runtime, "olive@example.com"))
            let oliveHash = try await runtime.catalog.requireAccount(email: "olive@example.com").passwordHash
            for target in [oliveId, sueId, samId] {
                try await Self.expectRefused(client, runtime, session: sam, actor: "sam@example.com", target: target,
                                             "reset-password", action: "reset-password")
                try await Self.expectRefused(client, runtime, session: sam, actor: "sam@example.com", target: target,
                                             "sign-out", action: "sign-out")
                try await Self.expectRefused(client, runtime, session: sam, actor: "sam@example.com", target: target, "grants",
                                             ["app": CommerceCatalogSamples.readerApp, "entitlement": "premium", "reason": "x"], action: "grant")
            }
            // The operator's password and sessions are untouched; the person pages offer none of these forms.
            #expect(try await runtime.catalog.requireAccount(email: "olive@example.com").passwordHash == oliveHash)
            #expect(try await WebAccountTests.webSignIn(client, email: "olive@example.com") != nil)
            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(oliveId)", session: sam).body)
            #expect(!page.contains("reset-password") && !page.contains("Grant an entitlement") && !page.contains("/sign-out"))
            let sue = try #require(UUID(uuidString: sueId))
            #expect(try await EntitlementGrantStore(purchases: runtime.purchases).list(account: sue).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorActsOnSupportAndCustomersButNotOnOperatorsOrItself(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let (oliveId, ottoId, samId) = (try await AdminConsoleTests.id(runtime, "olive@example.com"),
                                            try await AdminConsoleTests.id(runtime, "otto@example.com"),
                                            try await AdminConsoleTests.id(runtime, "sam@example.com"))
            for target in [ottoId, oliveId] {
                for (path, action) in [("reset-password", "reset-password"), ("disable", "disable"), ("enable", "enable"), ("sign-out", "sign-out")] {
                    try await Self.expectRefused(client, runtime, session: olive, actor: "olive@example.com", target: target, path, action: action)
                }
                try await Self.expectRefused(client, runtime, session: olive, actor: "olive@example.com", target: target, "grants",
                                             ["app": AppPricing.marketplaceApp, "entitlement": "member", "reason": "x"], action: "grant-membership")
            }
            #expect(try await runtime.catalog.requireAccount(email: "otto@example.com").disabled == false)
            #expect(try await WebAccountTests.webSignIn(client, email: "otto@example.com") != nil)

            // Support is below an operator: disabled, signed out, granted a membership.
            let samSession = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(samId)/sign-out", session: olive).status == .seeOther)
            #expect(try await AdminConsoleTests.get(client, "/admin", session: samSession).status == .seeOther)
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(samId)/grants", session: olive,
                                                     ["app": AppPricing.marketplaceApp, "entitlement": "member", "reason": "staff"]).status == .seeOther)
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(samId)/disable", session: olive).status == .seeOther)
            #expect(try await runtime.catalog.requireAccount(email: "sam@example.com").disabled)
            let actions = try await AuditLog(database: runtime.database).list(actor: "olive@example.com").map(\.action)
            #expect(actions.prefix(3) == ["account.disable", "entitlement.grant", "account.sign-out"])
        }
    }

    @Test(arguments: TestBackend.available)
    func membershipGrantsAndTheirRevocationAreAnOperators(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let adaId = try await AdminConsoleTests.id(runtime, "ada@example.com")
            let ada = try #require(UUID(uuidString: adaId))
            let grants = EntitlementGrantStore(purchases: runtime.purchases)

            // Support may grant an app's own entitlement to a customer, and is not offered the marketplace.
            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(adaId)", session: sam).body)
            #expect(page.contains(#"<option value="\#(CommerceCatalogSamples.readerApp)">"#))
            #expect(!page.contains(#"<option value="marketplace">"#))
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(adaId)/grants", session: sam,
                                                     ["app": CommerceCatalogSamples.readerApp, "entitlement": "premium", "reason": "goodwill"]).status == .seeOther)
            try await Self.expectRefused(client, runtime, session: sam, actor: "sam@example.com", target: adaId, "grants",
                                         ["app": AppPricing.marketplaceApp, "entitlement": "member", "reason": "x"], action: "grant-membership")
            #expect(try await grants.list(account: ada).map(\.app) == [CommerceCatalogSamples.readerApp])

            // The operator grants the membership; support cannot revoke it, the operator can.
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(adaId)/grants", session: olive,
                                                     ["app": AppPricing.marketplaceApp, "entitlement": "member", "reason": "press"]).status == .seeOther)
            let membership = try #require(try await grants.list(account: ada).first { $0.app == AppPricing.marketplaceApp })
            let revoke = "grants/\(membership.id.uuidString.lowercased())/revoke"
            try await Self.expectRefused(client, runtime, session: sam, actor: "sam@example.com", target: adaId, revoke, action: "revoke-membership")
            #expect(try await grants.grant(membership.id)?.revokedAt == nil)
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(adaId)/\(revoke)", session: olive).status == .seeOther)
            #expect(try await grants.grant(membership.id)?.revokedAt != nil)
        }
    }
}
