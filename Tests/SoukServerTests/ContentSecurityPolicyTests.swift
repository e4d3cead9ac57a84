import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Every page's `Content-Security-Policy`. Browsers apply `form-action` to the redirect after a
/// submission, so the device scheme must be named exactly where a form ends at the device, and
/// nowhere else. (Tests/browser checks the same pages in Chromium and WebKit.)
@Suite struct ContentSecurityPolicyTests {
    /// The directives of a response's policy: `["form-action": ["'self'"], …]`.
    static func policy(_ response: TestResponse) throws -> [String: [String]] {
        let header = try #require(response.headers[.contentSecurityPolicy])
        var directives: [String: [String]] = [:]
        for directive in header.split(separator: ";") {
            let words = directive.split(separator: " ").map(String.init)
            if let name = words.first { directives[name] = Array(words.dropFirst()) }
        }
        return directives
    }

    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AppPagesTests.prepare(runtime, paths)  // ada@example.com, app 6500000001 with a version
        let file = paths.folder + "/icon.png"
        try AppIconTests.png.write(to: URL(fileURLWithPath: file))
        try await runtime.catalog.setIcon(appleItemId: 6_500_000_001, pngAt: file, blobs: runtime.blobs)
    }

    @Test(arguments: TestBackend.available)
    func onlyTheDeviceSignInFormsMayEndAtTheDevice(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, configure: { $0.signUpEnabled = true }, prepare: Self.prepare) { client in
            let device = ["'self'", "app-distribution-oauth:"]
            // The sign-in page a device opens, and the same form shown again after a wrong password.
            let signIn = try await client.execute(uri: OAuthTests.authorizeURI(), method: .get)
            #expect(try Self.policy(signIn)["form-action"] == device)
            let form = try OAuthTests.signInForm(signIn)
            var fields = form.fields
            fields["password"] = "not the password"
            var headers = OAuthTests.formHeaders
            headers[.cookie] = form.cookie
            let again = try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers, body: OAuthTests.form(fields))
            #expect(again.status == .unauthorized)
            #expect(try Self.policy(again)["form-action"] == device)
            // "Continue as …" for a person signed in on the website.
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let continuePage = try await client.execute(uri: OAuthTests.authorizeURI(), method: .get, headers: [.cookie: session])
            #expect(String(buffer: continuePage.body).contains("Continue as ada@example.com"))
            #expect(try Self.policy(continuePage)["form-action"] == device)

            // Pages whose forms are answered on Souk.
            for (uri, sessionCookie) in [("/signin", nil), ("/signup", nil), ("/account", session), ("/apps/6500000001", session)] {
                let page = try await client.execute(uri: uri, method: .get, headers: sessionCookie.map { [.cookie: $0] } ?? [:])
                #expect(page.status == .ok, "\(uri)")
                #expect(try Self.policy(page)["form-action"] == ["'self'"], "\(uri)")
            }
            // Pages without a form: the install page (its link is a navigation, not a form), the
            // catalog, a signed-out app page, the license resolution page and a refused sign-in link.
            let appPage = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get, headers: [.cookie: session]).body)
            headers[.cookie] = session
            let install = try await client.execute(uri: "/apps/6500000001/install", method: .post, headers: headers,
                                                   body: OAuthTests.form(["csrf_token": try #require(WebAccountTests.csrf(in: appPage))]))
            #expect(String(buffer: install.body).contains("marketplace-kit://install?"))
            #expect(try Self.policy(install)["form-action"] == ["'none'"])
            for uri in ["/apps", "/apps/6500000001", "/license/resolve?appleItemID=6500000001", "/license/resolve",
                        "/oauth/authorize?client_id=x&redirect_uri=https://evil.example/"] {
                let page = try await client.execute(uri: uri, method: .get)
                #expect(String(buffer: page.body).contains("<h1>"), "\(uri)")
                let formAction = try Self.policy(page)["form-action"]
                #expect(formAction == ["'none'"] || (formAction == ["'self'"] && String(buffer: page.body).contains("<form")), "\(uri)")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func pagesRunNothingAndLoadOnlyWhatTheyShow(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            for uri in ["/signin", "/apps", "/apps/6500000001", "/license/resolve?appleItemID=6500000001", OAuthTests.authorizeURI()] {
                let page = try await client.execute(uri: uri, method: .get)
                let html = String(buffer: page.body)
                let policy = try Self.policy(page)
                #expect(policy["default-src"] == ["'none'"], "\(uri)")
                #expect(policy["frame-ancestors"] == ["'none'"] && policy["base-uri"] == ["'none'"], "\(uri)")
                #expect(policy["script-src"] == (html.contains("<script src=") ? ["'self'"] : nil), "\(uri): scripts fall under default-src 'none'")
                // Souk's stylesheet only: no inline <style>, no 'unsafe-inline'.
                #expect(!html.contains("<style"), "\(uri)")
                #expect(html.contains(#"<link rel="stylesheet" href="/assets/souk."#), "\(uri)")
                #expect(policy["style-src"] == ["'self'"], "\(uri)")
                #expect(policy["img-src"] == (html.contains("<img") ? ["'self'"] : ["'none'"]), "\(uri)")
            }
            // The app page shows its icon: images from Souk only.
            let app = try await client.execute(uri: "/apps/6500000001", method: .get)
            #expect(String(buffer: app.body).contains(#"<img src="/apps/6500000001/icon""#))
            #expect(try Self.policy(app)["img-src"] == ["'self'"])
        }
    }

    @Test(arguments: TestBackend.available)
    func theStylesheetIsServedImmutableAtItsContentAddress(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let page = String(buffer: try await client.execute(uri: "/apps", method: .get).body)
            let start = try #require(page.range(of: #"href="/assets/souk."#))
            let path = String(page[page.index(start.lowerBound, offsetBy: 6)...].prefix { $0 != "\"" })
            let css = try await client.execute(uri: path, method: .get)
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let digest = SHA256.hash(data: Data(buffer: css.body)).map { String(format: "%02x", $0) }.joined()
            #expect(path == "/assets/souk.\(digest.prefix(12)).css")
            let again = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: try #require(css.headers[.eTag])])
            #expect(again.status == .notModified)
            #expect(try await client.execute(uri: "/assets/souk.000000000000.css", method: .get).status == .notFound)
        }
    }
}
