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

/// The operator console's gate, roles, people and audit log, on both databases.
@Suite struct AdminConsoleTests {
    static let password = OAuthTests.password

    /// ada (customer), sam (support), olive (operator), and the reader app's catalog.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        let hash = try PasswordHashing.hash(password)
        try await runtime.catalog.createAccount(email: "ada@example.com", passwordHash: hash)
        for (email, role) in [("sam@example.com", AccountRole.support), ("olive@example.com", .operator)] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            account.role = role
            try await account.save(on: runtime.database.db)
        }
        _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.reader)
    }

    static func id(_ runtime: SoukRuntime, _ email: String) async throws -> String {
        try await runtime.catalog.requireAccount(email: email).requireID().uuidString.lowercased()
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, session: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: [.cookie: session])
    }

    /// Posts a console form with the session's CSRF token (read from `/admin`).
    static func post(_ client: any TestClientProtocol, _ uri: String, session: String, _ fields: [String: String] = [:],
                     csrf: String? = nil) async throws -> TestResponse {
        let token: String
        if let csrf { token = csrf } else {
            token = WebAccountTests.csrf(in: String(buffer: try await get(client, "/admin/security", session: session).body)) ?? ""
        }
        var headers = OAuthTests.formHeaders
        headers[.cookie] = session
        var body = fields
        body["csrf_token"] = token
        return try await client.execute(uri: uri, method: .post, headers: headers, body: OAuthTests.form(body))
    }

    @Test(arguments: TestBackend.available)
    func theGateSendsStrangersToSignInAndRefusesCustomersAndForgedForms(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let signedOut = try await client.execute(uri: "/admin/people?q=ada", method: .get)
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.location] == "/signin?next=/admin/people%3Fq%3Dada")

            // Signing in from there returns to the console page.
            let page = try await client.execute(uri: "/signin?next=%2Fadmin%2Fpeople", method: .get)
            let (cookie, fields) = try OAuthTests.signInForm(page)
            #expect(fields["return"] == "/admin/people")
            var headers = OAuthTests.formHeaders
            headers[.cookie] = cookie
            let signedIn = try await client.execute(uri: "/signin", method: .post, headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": "olive@example.com", "password": Self.password, "return": "/admin/people",
            ]))
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.headers[.location] == "/admin/people")
            // A `next` elsewhere is ignored.
            let offsite = try await client.execute(uri: "/signin?next=%2F%2Fevil.example", method: .get)
            #expect(try OAuthTests.hiddenFields(offsite)["return"] == nil)

            let customer = try #require(try await WebAccountTests.webSignIn(client, email: "ada@example.com"))
            let refused = try await Self.get(client, "/admin", session: customer)
            #expect(refused.status == .forbidden)
            #expect(String(buffer: refused.body).contains("no console role"))
            #expect(try await Self.get(client, "/admin/people", session: customer).status == .forbidden)

            let operatorSession = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let dashboard = try await Self.get(client, "/admin", session: operatorSession)
            #expect(dashboard.status == .ok)
            let html = String(buffer: dashboard.body)
            #expect(html.contains("<nav class=\"console\""))
            #expect(html.contains("Live licenses"))
            #expect(!html.contains("style="))
            let adaId = try await Self.csrfFree(client, operatorSession, "ada@example.com")
            #expect(try await Self.post(client, "/admin/people/\(adaId)/disable", session: operatorSession, csrf: "scs_forged").status == .forbidden)
            #expect(try await Self.post(client, "/admin/people/\(adaId)/grants", session: operatorSession,
                                        ["app": CommerceCatalogSamples.readerApp, "entitlement": "premium", "reason": "x"], csrf: "").status == .forbidden)
        }
    }

    /// The id of the account found by searching for `email` in the console.
    static func csrfFree(_ client: any TestClientProtocol, _ session: String, _ email: String) async throws -> String {
        let html = String(buffer: try await get(client, "/admin/people?q=\(email)", session: session).body)
        let range = try #require(html.range(of: #"<a href="/admin/people/"#))
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test(arguments: TestBackend.available)
    func supportGrantsAndMakesResetLinksButCannotDisable(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let support = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let adaId = try await Self.id(runtime, "ada@example.com")
            let person = String(buffer: try await Self.get(client, "/admin/people/\(adaId)", session: support).body)
            #expect(person.contains("Grant an entitlement"))
            #expect(!person.contains("Disable account"))
            #expect(try await Self.post(client, "/admin/people/\(adaId)/disable", session: support).status == .forbidden)
            #expect(try await runtime.catalog.requireAccount(email: "ada@example.com").disabled == false)

            let granted = try await Self.post(client, "/admin/people/\(adaId)/grants", session: support,
                                              ["app": CommerceCatalogSamples.readerApp, "entitlement": "premium", "reason": "press", "until": "2099-01-01"])
            #expect(granted.status == .seeOther)
            let reset = try await Self.post(client, "/admin/people/\(adaId)/reset-password", session: support)
            #expect(reset.status == .ok)
            #expect(String(buffer: reset.body).contains("Reset link, shown once"))
            #expect(try await WebAccountTests.webSignIn(client, email: "ada@example.com") == nil)

            let entries = try await AuditLog(database: runtime.database).list()
            // Newest first: the refused disable is audited too.
            #expect(entries.map(\.action) == ["account.reset-password", "entitlement.grant", "console.refused"])
            #expect(entries.allSatisfy { $0.actor == "sam@example.com" && $0.target == "account:\(adaId)" })
            #expect(entries[0].after?.contains("reset link until") == true)

            // The operator may disable; the audit log has the before and after.
            let operatorSession = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            #expect(String(buffer: try await Self.get(client, "/admin/people/\(adaId)", session: operatorSession).body).contains("Disable account"))
            #expect(try await Self.post(client, "/admin/people/\(adaId)/disable", session: operatorSession).status == .seeOther)
            #expect(try await Self.post(client, "/admin/people/\(adaId)/disable", session: operatorSession).status == .seeOther)
            #expect(try await runtime.catalog.requireAccount(email: "ada@example.com").disabled)
            let disabled = try await AuditLog(database: runtime.database).list(action: "account.disable")
            #expect(disabled.count == 1)
            #expect(disabled.first?.before == #"{"disabled":"false","email":"ada@example.com"}"#)
            #expect(disabled.first?.after == #"{"disabled":"true","email":"ada@example.com"}"#)
        }
    }

    @Test(arguments: TestBackend.available)
    func peopleSearchFindsByEmailOrIdAndAGrantLandsWithItsAuditEntry(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let session = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let adaId = try await Self.id(runtime, "ada@example.com")
            let byEmail = String(buffer: try await Self.get(client, "/admin/people?q=ADA%40", session: session).body)
            #expect(byEmail.contains("ada@example.com"))
            #expect(!byEmail.contains("sam@example.com"))
            let byId = String(buffer: try await Self.get(client, "/admin/people?q=\(adaId)", session: session).body)
            #expect(byId.contains("ada@example.com"))
            #expect(!byId.contains("sam@example.com"))
            #expect(String(buffer: try await Self.get(client, "/admin/people", session: session).body).contains("sam@example.com"))

            let bad = try await Self.post(client, "/admin/people/\(adaId)/grants", session: session,
                                          ["app": CommerceCatalogSamples.readerApp, "entitlement": "premium", "reason": "r", "until": "soon"])
            #expect(bad.status == .badRequest)
            let unknown = try await Self.post(client, "/admin/people/\(adaId)/grants", session: session,
                                              ["app": CommerceCatalogSamples.readerApp, "entitlement": "nope", "reason": "r"])
            #expect(unknown.status == .badRequest)
            #expect(String(buffer: unknown.body).contains("has no entitlement"))

            let granted = try await Self.post(client, "/admin/people/\(adaId)/grants", session: session,
                                              ["app": CommerceCatalogSamples.readerApp, "entitlement": "book.1", "reason": "support gesture",
                                               "until": "2099-06-01T12:00:00Z"])
            #expect(granted.headers[.location] == "/admin/people/\(adaId)?done=granted")
            let grants = try await EntitlementGrantStore(purchases: runtime.purchases).list(account: UUID(uuidString: adaId))
            let grant = try #require(grants.first)
            #expect(grants.count == 1 && grant.entitlementId == "book.1" && grant.environment == .production)
            #expect(grant.expiresAt == RFC3339.parse("2099-06-01T12:00:00Z"))
            let page = String(buffer: try await Self.get(client, "/admin/people/\(adaId)", session: session).body)
            #expect(page.contains("support gesture"))

            #expect(try await Self.post(client, "/admin/people/\(adaId)/grants/\(grant.id.uuidString.lowercased())/revoke",
                                        session: session).status == .seeOther)
            #expect(try await Self.post(client, "/admin/people/\(adaId)/grants/\(grant.id.uuidString.lowercased())/revoke",
                                        session: session).status == .seeOther)
            let entries = try await AuditLog(database: runtime.database).list(actor: "olive@example.com")
            #expect(entries.map(\.action) == ["entitlement.revoke", "entitlement.grant"])
            #expect(entries[1].before == nil)
            #expect(entries[1].after?.contains(#""entitlement":"book.1""#) == true)
            #expect(entries[0].before?.contains("revoked_at") == false)
            #expect(entries[0].after?.contains("revoked_at") == true)

            let audit = String(buffer: try await Self.get(client, "/admin/audit?action=entitlement.revoke", session: session).body)
            #expect(audit.contains("entitlement.revoke"))
            #expect(!audit.contains("<td>entitlement.grant</td>"))
        }
    }
}
