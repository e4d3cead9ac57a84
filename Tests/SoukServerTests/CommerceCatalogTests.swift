import Foundation
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct CommerceCatalogTests {
    static let app = CommerceCatalogSamples.readerApp

    static func prepareReader(_ runtime: SoukRuntime, _: ServerFixture.StorePaths) async throws {
        _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.reader)
    }

    static func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body))
    }

    @Test(arguments: TestBackend.available)
    func productsV1ListsTheAppleSKUsOnSaleInCatalogOrder(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepareReader) { client in
            let response = try await client.execute(uri: "/commerce/\(Self.app)/products_v1.json", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(try Self.json(response) as? [String] == ["com.example.reader.monthly", "com.example.reader.yearly",
                                                            "com.example.reader.coins100", "com.example.reader.pass30"])
            let roku = try await client.execute(uri: "/commerce/\(Self.app)/products_v1.json?store=roku", method: .get)
            #expect(try Self.json(roku) as? [String] == ["reader-monthly", "reader-coins-100"])
            let android = try await client.execute(uri: "/commerce/\(Self.app)/products_v1.json?platform=android", method: .get)
            #expect(try Self.json(android) as? [String] == ["monthly", "yearly", "book_1"])
            let unknown = try await client.execute(uri: "/commerce/\(Self.app)/products_v1.json?store=tizen", method: .get)
            #expect(unknown.status == .badRequest)
            let missing = try await client.execute(uri: "/commerce/com.example.none/products_v1.json", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(arguments: TestBackend.available)
    func conditionalRequestsAnswer304UntilTheCatalogChangesAndBothListsMoveTogether(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepareReader) { client, runtime in
            var validators: [String: (etag: String, lastModified: String)] = [:]
            for list in ["products_v1.json", "products_v2.json", "products"] {
                let first = try await client.execute(uri: "/commerce/\(Self.app)/\(list)", method: .get)
                let etag = try #require(first.headers[.eTag])
                let lastModified = try #require(first.headers[.lastModified])
                validators[list] = (etag, lastModified)
                let byTag = try await client.execute(uri: "/commerce/\(Self.app)/\(list)", method: .get, headers: [.ifNoneMatch: etag])
                #expect(byTag.status == .notModified)
                #expect(byTag.body.readableBytes == 0)
                let byDate = try await client.execute(uri: "/commerce/\(Self.app)/\(list)", method: .get, headers: [.ifModifiedSince: lastModified])
                #expect(byDate.status == .notModified)
                let other = try await client.execute(uri: "/commerce/\(Self.app)/\(list)", method: .get, headers: [.ifNoneMatch: "\"other\""])
                #expect(other.status == .ok)
            }
            var changed = CommerceCatalogSamples.reader
            changed.products.remove(at: 0)
            _ = try await runtime.commerceCatalogs.store.apply(changed)
            for list in ["products_v1.json", "products_v2.json", "products"] {
                let old = try #require(validators[list])
                let byTag = try await client.execute(uri: "/commerce/\(Self.app)/\(list)", method: .get, headers: [.ifNoneMatch: old.etag])
                #expect(byTag.status == .ok)
                #expect(byTag.headers[.eTag] != old.etag)
                let byDate = try await client.execute(uri: "/commerce/\(Self.app)/\(list)", method: .get, headers: [.ifModifiedSince: old.lastModified])
                #expect(byDate.status == .ok)
            }
            let v1 = try await client.execute(uri: "/commerce/\(Self.app)/products_v1.json", method: .get)
            #expect(try Self.json(v1) as? [String] == ["com.example.reader.yearly", "com.example.reader.coins100", "com.example.reader.pass30"])
            let v2 = try #require(try Self.json(try await client.execute(uri: "/commerce/\(Self.app)/products_v2.json", method: .get)) as? [String: Any])
            #expect((v2["products"] as? [[String: Any]])?.map { $0["id"] as? String } == ["reader.yearly", "reader.coins.100", "reader.book.1", "reader.pass.30d"])
            #expect(v2["revision"] as? Int == 2)
        }
    }

    @Test(arguments: TestBackend.available)
    func productsV2NamesSoukIdsWithTypesEntitlementsPromotionAndSKUs(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepareReader) { client in
            let response = try await client.execute(uri: "/commerce/\(Self.app)/products_v2.json", method: .get)
            let document = try #require(try Self.json(response) as? [String: Any])
            #expect(document["version"] as? Int == 2)
            #expect(document["app"] as? String == Self.app)
            let products = try #require(document["products"] as? [[String: Any]])
            #expect(products.count == 5)
            let monthly = products[0]
            #expect(monthly["id"] as? String == "reader.monthly")
            #expect(monthly["type"] as? String == "auto-renewable")
            #expect(monthly["period"] as? String == "P1M")
            #expect(monthly["group"] as? String == "plans" && monthly["level"] as? Int == 2)
            #expect(monthly["entitlements"] as? [String] == ["premium"])
            #expect((monthly["promoted"] as? [String: Any])?["order"] as? Int == 1)
            #expect((monthly["skus"] as? [String: String])?.count == 4)
            #expect(products[4]["duration"] as? String == "P30D")
            #expect(products[2]["promoted"] == nil)

            let apple = try #require(try Self.json(try await client.execute(uri: "/commerce/\(Self.app)/products_v2.json?platform=ios", method: .get)) as? [String: Any])
            let appleProducts = try #require(apple["products"] as? [[String: Any]])
            #expect(appleProducts.map { $0["id"] as? String } == ["reader.monthly", "reader.yearly", "reader.coins.100", "reader.pass.30d"])
            #expect(appleProducts[0]["skus"] as? [String: String] == ["apple_store": "com.example.reader.monthly"])
        }
    }

    @Test(arguments: TestBackend.available)
    func theFeedFollowsTheSeedWithTwoTypeValuesAndTheExactTypeAsAnExtension(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, configure: { $0.commerce.providerName = "reader-payments" }, prepare: Self.prepareReader) { client in
            let response = try await client.execute(uri: "/commerce/\(Self.app)/products", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/vnd+applicaster.pipes2+json")
            let feed = try #require(try Self.json(response) as? [String: Any])
            #expect((feed["type"] as? [String: String])?["value"] == "reader-payments")
            #expect(feed["next"] == nil)
            let entries = try #require(feed["entry"] as? [[String: Any]])
            #expect(entries.map { $0["id"] as? String } == ["reader.monthly", "reader.yearly", "reader.coins.100", "reader.book.1", "reader.pass.30d"])
            #expect(entries.map { ($0["type"] as? [String: String])?["value"] } == ["subscription", "subscription", "consumable", "consumable", "subscription"])
            let extensions = try #require(entries[3]["extensions"] as? [String: Any])
            #expect(extensions["product_type"] as? String == "non-consumable")
            #expect(extensions["external_sku"] as? [String: String] == ["google_play": "book_1"])
            let monthlySkus = (entries[0]["extensions"] as? [String: Any])?["external_sku"] as? [String: String]
            #expect(monthlySkus == ["apple_store": "com.example.reader.monthly", "google_play": "monthly",
                                    "amazon": "reader.monthly.term", "roku": "reader-monthly"])

            // A platform keeps only its store's SKU and drops products without one.
            let roku = try #require(try Self.json(try await client.execute(uri: "/commerce/\(Self.app)/products?platform=roku", method: .get)) as? [String: Any])
            let rokuEntries = try #require(roku["entry"] as? [[String: Any]])
            #expect(rokuEntries.map { $0["id"] as? String } == ["reader.monthly", "reader.coins.100"])
            #expect(rokuEntries.map { ($0["extensions"] as? [String: Any])?["external_sku"] as? [String: String] }
                    == [["roku": "reader-monthly"], ["roku": "reader-coins-100"]])
            let store = try #require(try Self.json(try await client.execute(uri: "/commerce/\(Self.app)/products?store=amazon", method: .get)) as? [String: Any])
            #expect((store["entry"] as? [[String: Any]])?.count == 1)
            let conflict = try await client.execute(uri: "/commerce/\(Self.app)/products?store=amazon&platform=ios", method: .get)
            #expect(conflict.status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func aLongFeedPagesWithAbsoluteNextURLs(_ backend: TestBackend) async throws {
        let app = "com.example.shop"
        try await ServerFixture.with(backend, prepare: { runtime, _ in
            _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.consumables(app: app, count: 45))
        }) { client in
            var uri = "/commerce/\(app)/products?platform=android"
            var ids: [String] = []
            var pages = 0
            while true {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                let feed = try #require(try Self.json(response) as? [String: Any])
                let entries = try #require(feed["entry"] as? [[String: Any]])
                #expect(entries.count <= 20)
                ids += entries.compactMap { $0["id"] as? String }
                pages += 1
                guard let next = feed["next"] as? String else { break }
                #expect(next.hasPrefix("https://souk.test/commerce/\(app)/products?"))
                #expect(next.contains("platform=android"))
                uri = String(next.dropFirst("https://souk.test".count))
            }
            #expect(pages == 3)
            #expect(ids == (0..<45).map { "item.\($0)" })
            let bad = try await client.execute(uri: "/commerce/\(app)/products?page=0", method: .get)
            #expect(bad.status == .badRequest)
            // A page number whose offset overflows (found by schemathesis) is an empty last page, not a crash.
            let far = try await client.execute(uri: "/commerce/\(app)/products?page=6165903546708930560&store=google_play", method: .get)
            #expect(far.status == .ok)
            let farFeed = try #require(try Self.json(far) as? [String: Any])
            #expect((farFeed["entry"] as? [Any])?.isEmpty == true && farFeed["next"] == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func retiredProductsLeaveEveryList(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepareReader) { client, runtime in
            var changed = CommerceCatalogSamples.reader
            changed.products.removeAll { $0.id == "reader.coins.100" }
            _ = try await runtime.commerceCatalogs.apply(changed)
            let v1 = try Self.json(try await client.execute(uri: "/commerce/\(Self.app)/products_v1.json", method: .get)) as? [String]
            #expect(v1?.contains("com.example.reader.coins100") == false)
            let feed = try #require(try Self.json(try await client.execute(uri: "/commerce/\(Self.app)/products", method: .get)) as? [String: Any])
            #expect((feed["entry"] as? [[String: Any]])?.contains { $0["id"] as? String == "reader.coins.100" } == false)
            let state = try #require(try await runtime.commerceCatalogs.state(app: Self.app))
            #expect(state.retired.map(\.id) == ["reader.coins.100"])
        }
    }

    @Test func theDemoMarketplaceSellsInAppProducts() async throws {
        try await ServerFixture.with(.sqlite, prepare: { runtime, _ in
            _ = try await DemoSeeder(runtime: runtime).seedIfEmpty()
        }) { client in
            let v1 = try await client.execute(uri: "/commerce/org.souk.demo.studio/products_v1.json", method: .get)
            #expect(try Self.json(v1) as? [String] == ["org.souk.demo.studio.monthly", "org.souk.demo.studio.yearly",
                                                      "org.souk.demo.studio.credits50", "org.souk.demo.studio.brushes",
                                                      "org.souk.demo.studio.weekpass"])
            let feed = try #require(try Self.json(try await client.execute(uri: "/commerce/org.souk.demo.studio/products?platform=roku", method: .get)) as? [String: Any])
            #expect((feed["entry"] as? [[String: Any]])?.count == 5)
        }
    }
}
