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

/// The storefront's pages through the real application, on both databases: home, all apps,
/// categories, search, the app page's facts, the sitemap and the error pages.
@Suite struct StorefrontPagesTests {
    static let iconSHA = String(repeating: "a", count: 64)
    static let html: HTTPFields = [.accept: "text/html,application/xhtml+xml"]

    static func image(_ letter: Character, width: Int, height: Int, variants: [Int]) -> AppMedia.Image {
        AppMedia.Image(sha256: String(repeating: letter, count: 64), width: width, height: height,
                       variants: variants.map { AppMedia.Variant(width: $0, height: $0 * height / width, sha256: "\(letter)\($0)".padding(toLength: 64, withPad: "0", startingAt: 0)) })
    }

    /// The sample app (6500000001, a package whose variant is 100,000 bytes) with media, a category,
    /// what's new and in-app products; three apps the searches look for; 60 fillers; one taken down.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await InstallLinkTests.prepare(runtime, paths)
        let db = runtime.database.db
        let sample = try await runtime.catalog.app(appleItemId: 6_500_000_001)
        sample.subtitle = "Notes that sync"
        sample.developerName = "Sample Studio"
        sample.appDescription = "Write things down.\n\nFind them again."
        sample.category = AppCategory.productivity.slug
        sample.whatsNew = "Faster sync."
        sample.featuredOrder = 2
        sample.mediaJSON = AppMedia(icon: image("a", width: 1024, height: 1024, variants: [64, 128, 256]), screenshots: [
            AppMedia.Screenshot(family: .iphone, image: image("b", width: 1290, height: 2796, variants: [300, 600])),
            AppMedia.Screenshot(family: .iphone, image: image("c", width: 1290, height: 2796, variants: [300, 600])),
            AppMedia.Screenshot(family: .ipad, image: image("d", width: 2048, height: 2732, variants: [300, 600])),
        ]).encoded()
        try await sample.save(on: db)
        _ = try await runtime.commerceCatalogs.apply(CommerceCatalog(app: "org.example.sample", products: [
            ProductDefinition(id: "pro", type: .nonConsumable, title: ["en-US": "Pro features"], prices: [Price(currency: "USD", amount: 499)],
                              skus: [.appleStore: "org.example.sample.pro"]),
            ProductDefinition(id: "coins", type: .consumable, title: ["en-US": "100 coins"], prices: [Price(currency: "USD", amount: 99)],
                              skus: [.appleStore: "org.example.sample.coins"]),
        ]))
        func add(_ id: UInt64, _ name: String, developer: String = "", description: String = "", category: AppCategory? = nil,
                 featured: Int? = nil, released: String? = nil) async throws {
            let app = AppModel(appleItemId: id, bundleId: "org.example.app\(id)", name: name, description: description, developerName: developer)
            app.category = category?.slug
            app.featuredOrder = featured
            try await runtime.catalog.createApp(app)
            if let released {
                try await AppVersionModel(appID: try app.requireID(), appleVersionId: id + 500_000, bundleVersion: "1", shortVersionString: "1.0",
                                          minimumOS: [.iOS: OSVersion("16.0")!], releaseDate: try Date(released, strategy: .iso8601))
                    .create(on: db)
            }
        }
        try await add(1001, "Zebra Notes", developer: "Acme", category: .productivity, featured: 1, released: "2026-01-02T00:00:00Z")
        try await add(1002, "Planner", developer: "Zebra Labs", category: .travel, released: "2026-03-01T00:00:00Z")
        try await add(1003, "Budget", description: "Counts zebra stripes.")
        for index in 1...60 {
            try await add(2000 + UInt64(index), String(format: "Filler %03d", index), developer: "Filler Co")
        }
        try await runtime.catalog.createApp(AppModel(appleItemId: 77, bundleId: "org.example.gone", name: "Gone Zebra"))
        try await runtime.catalog.setAvailability(appleItemId: 77, to: .takenDown)
    }

    static func get(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, String) {
        let answer = try await client.execute(uri: uri, method: .get, headers: headers)
        return (answer.status, String(buffer: answer.body))
    }

    /// The positions of `needles` in `text` are increasing (each present).
    static func inOrder(_ text: String, _ needles: [String]) -> Bool {
        var from = text.startIndex
        for needle in needles {
            guard let range = text.range(of: needle, range: from..<text.endIndex) else { return false }
            from = range.upperBound
        }
        return true
    }

    @Test(arguments: TestBackend.available)
    func theHomePageShowsFeaturedNewestAndCategoriesWithApps(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let (status, page) = try await Self.get(client, "/")
            #expect(status == .ok)
            #expect(page.components(separatedBy: "<h1").count == 2)
            let featured = try #require(page.range(of: "<h2>Featured</h2>"))
            let newest = try #require(page.range(of: "<h2>New and updated</h2>"))
            let categories = try #require(page.range(of: "<h2>Categories</h2>"))
            let featuredPart = String(page[featured.upperBound..<newest.lowerBound])
            #expect(Self.inOrder(featuredPart, ["/apps/1001", "/apps/6500000001"]) && !featuredPart.contains("/apps/1002"))
            let newestPart = String(page[newest.upperBound..<categories.lowerBound])
            // The sample's version was released at import (now): newest first; no version, not listed.
            #expect(Self.inOrder(newestPart, ["/apps/6500000001", "/apps/1002", "/apps/1001"]))
            #expect(!newestPart.contains("/apps/1003") && !newestPart.contains("/apps/2001"))
            let categoriesPart = String(page[categories.upperBound...])
            #expect(Self.inOrder(categoriesPart, [#"href="/categories/productivity">Productivity"#, #"href="/categories/travel">Travel"#]))
            #expect(!categoriesPart.contains("Health &amp; Fitness") && !categoriesPart.contains("/categories/games"))
            #expect(page.contains(#"srcset="/media/"#) && page.contains(#"<ul class="grid">"#))
            #expect(!page.contains("/apps/77"))
        }
    }

    @Test(arguments: TestBackend.available)
    func allAppsArePagedFiftyAtATimeByName(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let (status, first) = try await Self.get(client, "/apps")
            #expect(status == .ok)
            #expect(first.components(separatedBy: #"<li class="card">"#).count - 1 == 50)
            #expect(Self.inOrder(first, ["/apps/1003", "/apps/2001", "/apps/2002", "/apps/2049"]) && !first.contains("/apps/2050"))  // Budget, Filler 001…049
            #expect(first.contains("64 apps") && first.contains("Page 1 of 2") && first.contains(#"href="/apps?page=2" rel="next""#))
            #expect(!first.contains(#"rel="prev""#))
            let (_, second) = try await Self.get(client, "/apps?page=2")
            #expect(second.components(separatedBy: #"<li class="card">"#).count - 1 == 14)
            #expect(Self.inOrder(second, ["/apps/2050", "/apps/2060", "/apps/1002", "/apps/6500000001", "/apps/1001"]))
            #expect(second.contains(#"href="/apps" rel="prev""#) && !second.contains(#"rel="next""#))
            for beyond in ["/apps?page=3", "/apps?page=0", "/apps?page=x"] {
                #expect(try await Self.get(client, beyond).0 == .notFound)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aCategoryListsItsAppsAndAnUnknownOneIsAStorefront404(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let (status, page) = try await Self.get(client, "/categories/productivity")
            #expect(status == .ok)
            #expect(page.contains("<h1>Productivity</h1>") && page.contains("2 apps"))
            #expect(Self.inOrder(page, ["/apps/6500000001", "/apps/1001"]) && !page.contains("/apps/1002"))
            let (emptyStatus, empty) = try await Self.get(client, "/categories/health-fitness")
            #expect(emptyStatus == .ok && empty.contains("<h1>Health &amp; Fitness</h1>") && empty.contains("No apps yet."))
            #expect(try await Self.get(client, "/categories/productivity?page=2").0 == .notFound)

            // A browser gets the storefront's error page; a program the RFC 9457 problem.
            let browser = try await client.execute(uri: "/categories/nope", method: .get, headers: Self.html)
            #expect(browser.status == .notFound && browser.headers[.contentType] == "text/html; charset=utf-8")
            let text = String(buffer: browser.body)
            #expect(text.contains("<h1>Page not found</h1>") && text.contains("There is no such category.") && text.contains(#"action="/search""#))
            // The request's id is shown when the answer names one, and no empty line when it names none.
            #expect(text.contains("Request id: <code>") && !text.contains("<code></code>"))
            let program = try await client.execute(uri: "/categories/nope", method: .get)
            #expect(program.status == .notFound && program.headers[.contentType] == "application/problem+json")
            let nowhere = try await client.execute(uri: "/no/such/page", method: .get, headers: Self.html)
            #expect(nowhere.status == .notFound && String(buffer: nowhere.body).contains("There is no page at this address."))
            #expect(!String(buffer: nowhere.body).contains("<code></code>"))
            let gone = try await client.execute(uri: "/apps/77", method: .get, headers: Self.html)
            #expect(gone.status == .notFound && String(buffer: gone.body).contains("This app is not available."))
            let api = try await client.execute(uri: "/api/v1/nothing", method: .get, headers: Self.html)
            #expect(api.status == .notFound && api.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(arguments: TestBackend.available)
    func searchRanksNameMatchesFirstAndPages(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let (status, zebra) = try await Self.get(client, "/search?q=ZEBRA")
            #expect(status == .ok)
            #expect(zebra.contains(#"value="ZEBRA""#) && zebra.contains("3 apps match."))
            // Name, then developer, then description; the taken-down app is not there.
            #expect(Self.inOrder(zebra, ["/apps/1001", "/apps/1002", "/apps/1003"]) && !zebra.contains("/apps/77"))
            let (_, prefix) = try await Self.get(client, "/search?q=zeb")
            #expect(Self.inOrder(prefix, ["/apps/1001", "/apps/1002", "/apps/1003"]))
            let (_, hint) = try await Self.get(client, "/search?q=")
            #expect(hint.contains("Type a word in the search box") && !hint.contains(#"<li class="card">"#))
            let (_, none) = try await Self.get(client, "/search?q=xylophone")
            #expect(none.contains("No apps match “xylophone”"))
            let (_, fillers) = try await Self.get(client, "/search?q=filler")
            #expect(fillers.contains("60 apps match.") && fillers.contains(#"href="/search?q=filler&amp;page=2" rel="next""#))
            let (_, second) = try await Self.get(client, "/search?q=filler&page=2")
            #expect(second.components(separatedBy: #"<li class="card">"#).count - 1 == 10 && second.contains(#"href="/search?q=filler" rel="prev""#))
            #expect(try await Self.get(client, "/search?q=filler&page=3").0 == .notFound)
            // The search box is labelled.
            #expect(zebra.contains(#"<label for="site-search""#) && zebra.contains(#"role="search""#))
        }
    }

    @Test(arguments: TestBackend.available)
    func theAppPageShowsMediaFactsProductsAndSpotlightData(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let (status, page) = try await Self.get(client, "/apps/6500000001")
            #expect(status == .ok)
            #expect(page.components(separatedBy: "<h1").count == 2)
            #expect(page.contains(#"alt="Sample icon""#) && page.contains("/media/\(Self.iconSHA).png 1024w"))
            #expect(page.contains(#"class="icon" srcset="#) && page.contains(#"sizes="128px" alt="Sample icon" width="128" height="128">"#))
            #expect(Self.inOrder(page, ["<h2>Screenshots</h2>", #"<h3 id="screens-iphone">iPhone</h3>"#, #"alt="Sample on iPhone, screenshot 1 of 2""#,
                                        #"alt="Sample on iPhone, screenshot 2 of 2""#, #"<h3 id="screens-ipad">iPad</h3>"#, #"alt="Sample on iPad, screenshot 1 of 1""#]))
            #expect(page.contains("<p>Write things down.</p>") && page.contains("<p>Find them again.</p>"))
            #expect(page.contains("What’s new") && page.contains("Faster sync."))
            #expect(Self.inOrder(page, ["<h2>In-app purchases</h2>", "Pro features", "4.99 USD", "100 coins", "0.99 USD"]))
            #expect(page.contains("<dt>Size</dt><dd>100 KB</dd>"))
            #expect(page.contains("Requires iOS 17.0 or later"))
            #expect(page.contains(#"<a href="/categories/productivity">Productivity</a>"#))
            #expect(page.contains("<dt>Developer</dt><dd>Sample Studio</dd>") && page.contains(#"<p class="price">Free</p>"#))
            #expect(page.contains("Version history") && page.contains("Sign in to install") && page.contains("/signin?return=/apps/6500000001"))
            let start = try #require(page.range(of: #"<script type="application/ld+json">"#))
            let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
            let jsonLD = try #require(try JSONSerialization.jsonObject(with: Data(page[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
            #expect(jsonLD["image"] as? String == "https://souk.test/media/\(Self.iconSHA).png")
            #expect(jsonLD["applicationCategory"] as? String == "Productivity")
            #expect((jsonLD["screenshot"] as? [String])?.count == 3)

            // Signed in, a free app offers Install.
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let signedIn = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get, headers: [.cookie: session]).body)
            #expect(signedIn.contains(">Install</button>") && !signedIn.contains("Sign in to install"))

            let sitemap = String(buffer: try await client.execute(uri: "/sitemap.xml", method: .get).body)
            #expect(sitemap.contains("<loc>https://souk.test/</loc>") && sitemap.contains("<loc>https://souk.test/categories/productivity</loc>"))
            #expect(sitemap.contains("<loc>https://souk.test/categories/travel</loc>") && !sitemap.contains("/categories/games"))
            #expect(sitemap.contains("<loc>https://souk.test/apps/2060</loc>") && !sitemap.contains("/apps/77<"))
            // While everything fits in one file there are no sitemap pages.
            #expect(try await client.execute(uri: "/sitemaps/1.xml", method: .get).status == .notFound)
        }
    }

    @Test func aSitemapFileListsItsPathsUnderTheEscapedBase() {
        let xml = AppPagesController<SoukRequestContext>.urlset(["/", "/apps/1"], base: "https://souk.test/a&b")
        #expect(xml == """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc>https://souk.test/a&amp;b/</loc></url>
              <url><loc>https://souk.test/a&amp;b/apps/1</loc></url>
            </urlset>

            """)
    }
}
