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

/// The license resolution page (spec §3.3) tells an account's details only to that account's own
/// website session; to anyone else it says the same thing whether the account exists or not.
@Suite struct LicenseResolutionTests {
    static func page(_ client: any TestClientProtocol, _ query: String, cookie: String? = nil) async throws -> (HTTPResponse.Status, String) {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        let response = try await client.execute(uri: "/license/resolve?\(query)", method: .get, headers: headers)
        return (response.status, String(buffer: response.body))
    }

    /// A website session of `email`, as a `Cookie` header value.
    static func session(_ runtime: SoukRuntime, _ email: String) async throws -> String {
        let account = try await runtime.catalog.requireAccount(email: email)
        return "souk_session=" + (try await WebSessionStore(database: runtime.database).create(accountID: try account.requireID()))
    }

    /// ada@example.com with a revoked license for app 1 and a device limit of one, used by another device.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AppDataTests.prepare(runtime, paths)
        try await runtime.catalog.createAccount(email: "bob@example.com", passwordHash: try PasswordHashing.hash(OAuthTests.password))
        let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
        let store = LicenseStore(database: runtime.database)
        _ = try await store.issued(accountID: try account.requireID(), appleItemId: 1, appleVersionId: 102, deviceId: "aa")
        try await store.revoke(.init(accountID: try account.requireID(), appleItemId: 1), reason: "chargeback <b>")
        _ = try await store.issued(accountID: try account.requireID(), appleItemId: 4, appleVersionId: 401, deviceId: "bb")
        account.deviceLimit = 1
        try await account.save(on: runtime.database.db)
    }

    static let secrets = ["chargeback", "revoked", "device limit", "disabled", "There is no", "1 of 1", "ada@"]

    @Test(arguments: TestBackend.available)
    func withoutTheAccountsSessionThePageRevealsNothing(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let existing = try await Self.page(client, "account=ada@example.com&appleItemID=1&appleVersionID=102")
            let unknown = try await Self.page(client, "account=zed@example.com&appleItemID=1&appleVersionID=102")
            #expect(existing.0 == .ok && unknown.0 == .ok)
            // Only the sign-in link, which returns to the page, repeats the address the link named.
            #expect(existing.1.replacingOccurrences(of: "ada@example.com", with: "X") == unknown.1.replacingOccurrences(of: "zed@example.com", with: "X"))
            #expect(existing.1.contains(#"href="/signin?return=/license/resolve%3Faccount%3Dada@example.com%26appleItemID%3D1%26appleVersionID%3D102""#))
            for secret in Self.secrets { #expect(!existing.1.replacingOccurrences(of: "ada@example.com", with: "X").contains(secret), "\(secret)") }

            // A disabled account looks the same; so does an account app.
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            account.disabled = true
            try await account.save(on: runtime.database.db)
            let disabled = try await Self.page(client, "account=ada@example.com&appleItemID=1&appleVersionID=102")
            #expect(disabled.1 == existing.1)
            let gated = try await Self.page(client, "appleItemID=2")
            #expect(gated.1.contains("Sign in"))
            for secret in Self.secrets { #expect(!gated.1.contains(secret), "\(secret)") }
        }
    }

    @Test(arguments: TestBackend.available)
    func anotherAccountsSessionLearnsNothingAboutThisOne(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let bob = try await Self.session(runtime, "bob@example.com")
            let (status, html) = try await Self.page(client, "account=ada@example.com&appleItemID=1", cookie: bob)
            #expect(status == .ok)
            #expect(html.contains("another account"))
            for secret in Self.secrets { #expect(!html.replacingOccurrences(of: "account=ada@example.com", with: "").contains(secret), "\(secret)") }
            let unknown = try await Self.page(client, "account=zed@example.com&appleItemID=1", cookie: bob)
            #expect(unknown.1 == html)
        }
    }

    @Test(arguments: TestBackend.available)
    func theAccountsOwnSessionSeesWhyAndWhatToDo(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let ada = try await Self.session(runtime, "ada@example.com")
            let revoked = try await Self.page(client, "account=ADA@example.com&appleItemID=1", cookie: ada)
            #expect(revoked.1.contains("revoked it (chargeback &lt;b&gt;)"))
            let limited = try await Self.page(client, "account=ada@example.com&appleItemID=2", cookie: ada)
            #expect(limited.1.contains("device limit"))
            #expect(limited.1.contains("1 of 1 devices"))
            // Without `account`, the page is about the signed-in account.
            #expect(try await Self.page(client, "appleItemID=2", cookie: ada).1.contains("device limit"))
            #expect(try await Self.page(client, "appleItemID=3", cookie: ada).1.contains("no longer available"))
            let escaped = try await Self.page(client, "account=%3Cscript%3E&appleItemID=1")
            #expect(!escaped.1.contains("<script>"))
            #expect(try await Self.page(client, "appleItemID=x").0 == .badRequest)
        }
    }

    @Test func signingInFromThePageReturnsToIt() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepare) { client in
            let target = "/license/resolve?account=ada@example.com&appleItemID=1"
            let (_, html) = try await Self.page(client, "account=ada@example.com&appleItemID=1")
            let range = try #require(html.range(of: #"href="/signin?return="#))
            let href = String(html[html.index(range.lowerBound, offsetBy: 6)...].prefix { $0 != "\"" })
            for (link, expected) in [(href, target), ("/signin?return=%2F%2Fevil.example%2F", "/account"),
                                     ("/signin?return=https%3A%2F%2Fevil.example%2F", "/account")] {
                let form = try await client.execute(uri: link.replacingOccurrences(of: "&amp;", with: "&"), method: .get)
                let (cookie, fields) = try OAuthTests.signInForm(form)
                var headers = OAuthTests.formHeaders
                headers[.cookie] = cookie
                var items = fields
                items["email"] = "ada@example.com"
                items["password"] = OAuthTests.password
                let signedIn = try await client.execute(uri: "/signin", method: .post, headers: headers, body: OAuthTests.form(items))
                #expect(signedIn.status == .seeOther)
                #expect(signedIn.headers[.location] == expected, "\(link)")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aDatabaseErrorIsNeverAVerdict(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let ada = try await Self.session(runtime, "ada@example.com")
            let licensing = try await LicenseClient.make(client)
            try await runtime.database.sql.raw("ALTER TABLE licenses RENAME TO licenses_away").run()
            let license = try await licensing.request(device: "abcd", apps: [(1, 102)])
            #expect(license.status.code >= 500, "a license request without its table answered \(license.status)")
            try await runtime.database.sql.raw("ALTER TABLE apps RENAME TO apps_away").run()
            let (status, html) = try await Self.page(client, "account=ada@example.com&appleItemID=1", cookie: ada)
            #expect(status.code >= 500)
            #expect(!html.contains("no longer available"))
        }
    }
}
