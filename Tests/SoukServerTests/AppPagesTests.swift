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
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
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
            // The sitemap is kept per catalog revision: a takedown moves the revision, and the app leaves it.
            _ = try await runtime.catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown)
            let after = String(buffer: try await client.execute(uri: "/sitemap.xml", method: .get).body)
            #expect(!after.contains("/apps/6500000001"))
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

    /// A paid app's page: the price for everyone, Buy (not Install) for a signed-in person who has
    /// not bought it, an order through the development processor that sends the browser back to a
    /// page that now offers Install; no install link before.
    @Test(arguments: TestBackend.available)
    func aPaidAppIsBoughtFromItsPageThenInstalled(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: { runtime, paths in
            try await Self.prepare(runtime, paths)
            try await runtime.catalog.setPricing(appleItemId: 6_500_000_001, prices: [Price(currency: "USD", amount: 299)], requiresEntitlement: nil)
        }) { client, runtime in
            try await runtime.catalogIndex.refresh()
            let signedOut = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get).body)
            #expect(signedOut.contains("2.99 USD") && signedOut.contains("Sign in to install"))
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let page = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get, headers: [.cookie: session]).body)
            #expect(page.contains("Buy for 2.99 USD") && !page.contains(">Install</button>"))
            let csrf = try #require(WebAccountTests.csrf(in: page))
            var headers = OAuthTests.formHeaders
            headers[.cookie] = session
            // Install before paying: back to the page, no link.
            let early = try await client.execute(uri: "/apps/6500000001/install", method: .post, headers: headers, body: OAuthTests.form(["csrf_token": csrf]))
            #expect(early.status == .seeOther && early.headers[.location] == "/apps/6500000001")
            #expect(try await client.execute(uri: "/apps/6500000001/buy", method: .post, headers: headers,
                                             body: OAuthTests.form(["csrf_token": "scs_forged"])).status == .forbidden)
            let bought = try await client.execute(uri: "/apps/6500000001/buy", method: .post, headers: headers, body: OAuthTests.form(["csrf_token": csrf]))
            #expect(bought.status == .seeOther)
            #expect(bought.headers[.location]?.hasPrefix("https://souk.test/apps/6500000001?order=") == true)
            let after = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get, headers: [.cookie: session]).body)
            #expect(after.contains(">Install</button>") && !after.contains("Buy for"))
            let install = try await client.execute(uri: "/apps/6500000001/install", method: .post, headers: headers, body: OAuthTests.form(["csrf_token": csrf]))
            #expect(install.status == .ok && String(buffer: install.body).contains("marketplace-kit://install?"))
        }
    }

    @Test func stripesCheckoutOriginIsAllowedOnlyForTheBuyForm() {
        var commerce = SoukConfig.CommerceSettings()
        #expect(commerce.stripeCheckoutOrigin == nil)
        commerce.paymentProcessor = "stripe"
        #expect(commerce.stripeCheckoutOrigin == "https://checkout.stripe.com")
        commerce.stripeBaseURL = "http://127.0.0.1:9999"
        #expect(commerce.stripeCheckoutOrigin == "http://127.0.0.1:9999")
        let policy = ContentSecurityPolicy(page: "<form></form>", formTargets: .soukThenPayment("https://checkout.stripe.com"))
        #expect(policy.headerValue.contains("form-action 'self' https://checkout.stripe.com;"))
    }
}
