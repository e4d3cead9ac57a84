import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct AppPagesTests {
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await InstallLinkTests.prepare(runtime, paths)  // account, app 6500000001 with a version, marketplace id
        let app = try await runtime.catalog.app(appleItemId: 6_500_000_001)
        app.name = "Notes <b>Pro</b>"
        app.appDescription = "Writes </script><script>alert(1)</script> & more"
        app.developerName = "Studio \"Quote\""
        try await app.save(on: runtime.database.db)
        try await runtime.catalog.createApp(AppModel(appleItemId: 77, bundleId: "org.example.gone", name: "Gone"))
        try await runtime.catalog.setAvailability(appleItemId: 77, to: .takenDown)
    }

    @Test(arguments: TestBackend.available)
    func appPagesEscapeEverythingAndCarrySpotlightData(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let page = try await client.execute(uri: "/apps/6500000001", method: .get)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("Notes &lt;b&gt;Pro&lt;/b&gt;"))
            #expect(!html.contains("<script>alert(1)"))
            #expect(html.contains("Sign in to install"))
            let start = try #require(html.range(of: #"<script type="application/ld+json">"#))
            let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
            let jsonLD = try #require(try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
            #expect(jsonLD["@type"] as? String == "MobileApplication")
            #expect(jsonLD["name"] as? String == "Notes <b>Pro</b>")
            let feed = try #require((jsonLD["supportingData"] as? [String: Any])?["dataFeedElement"] as? [[String: Any]])
            #expect(feed.contains { $0["name"] as? String == "com.apple.alternativeDistribution.search.appleItemId" && $0["value"] as? String == "6500000001" })
            #expect(feed.contains { $0["name"] as? String == "com.apple.alternativeDistribution.search.appleVersionId" && $0["value"] as? String == "9000000001" })

            let catalog = String(buffer: try await client.execute(uri: "/apps", method: .get).body)
            #expect(catalog.contains("/apps/6500000001"))
            #expect(!catalog.contains("/apps/77"))
            #expect(try await client.execute(uri: "/apps/77", method: .get).status == .notFound)
            let sitemap = String(buffer: try await client.execute(uri: "/sitemap.xml", method: .get).body)
            #expect(sitemap.contains("<loc>https://souk.test/apps/6500000001</loc>"))
            #expect(!sitemap.contains("/apps/77"))
        }
    }

    @Test func theInstallButtonAnswersWithAFreshLinkForTheSignedInPerson() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepare) { client in
            #expect(try await client.execute(uri: "/apps/6500000001/install", method: .post, headers: OAuthTests.formHeaders,
                                             body: OAuthTests.form([:])).status == .seeOther)
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let page = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get, headers: [.cookie: session]).body)
            let csrf = try #require(WebAccountTests.csrf(in: page))
            var headers = OAuthTests.formHeaders
            headers[.cookie] = session
            #expect(try await client.execute(uri: "/apps/6500000001/install", method: .post, headers: headers,
                                             body: OAuthTests.form(["csrf_token": "scs_forged"])).status == .forbidden)
            #expect(try await client.execute(uri: "/apps/77/install", method: .post, headers: headers,
                                             body: OAuthTests.form(["csrf_token": csrf])).status == .notFound)
            let answer = try await client.execute(uri: "/apps/6500000001/install", method: .post, headers: headers,
                                                  body: OAuthTests.form(["csrf_token": csrf]))
            #expect(answer.status == .ok)
            #expect(answer.headers[.location] == nil)
            let html = String(buffer: answer.body)
            let start = try #require(html.range(of: #"<a class="install" href=""#))
            let href = String(html[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
            let items = Dictionary(uniqueKeysWithValues: (URLComponents(string: href)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(href.hasPrefix("marketplace-kit://install?"))
            #expect(URL(string: items["alternativeDistributionPackage"] ?? "")?.host == "souk.test")
            #expect(items["account"] == "ada@example.com")
            #expect(items["token"]?.hasPrefix("sig_") == true)
            #expect(items["installVerificationToken"]?.split(separator: ".").count == 3)
        }
    }
}
