import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Testing

/// The indexes' full loads read rows by position (`IndexRows`), not through SQLKit's decoding by
/// column name: on both databases, what they hold is what the SQLKit reading of the same apps
/// (`load(only:)`, still used for the change log's few apps) gives, field by field, and versions
/// not released (in review, rejected) stay out of both.
@Suite struct IndexFullLoadTests {
    static let appCount = 240
    static let release = Date(timeIntervalSince1970: 1_767_225_600.25)
    static let words = ["garden", "gardener", "weather", "notes", "café", "crème", "budget", "chess", "maps", "Ünal", "straße", "日記"]
    static let queries = ["garden", "gard", "notes weather", "cafe", "CRÈ", "chess maps", "ga", "m", "app 7", "unal", "strasse", "日記",
                          "zzz", "bench 12", "12"]

    static func id(_ n: Int) -> UInt64 { UInt64(7_000_000_000 + n) }

    /// `appCount` apps with every field kind: names with diacritics and repeated names, empty
    /// subtitles and developers, categories, featured orders, icons, media, prices, a required
    /// entitlement, account access, taken-down apps; none, one or several versions, with several
    /// platforms, withdrawn ones, and ones in review or rejected.
    static func seed(_ store: StoreFixture) async throws -> (ids: [UInt64], notReleased: Set<UInt64>) {
        var ids: [UInt64] = []
        var notReleased: Set<UInt64> = []
        let db = store.database.db
        for n in 0..<appCount {
            func word(_ k: Int) -> String { words[(n * 7 + k * 5) % words.count] }
            let app = AppModel(appleItemId: id(n), bundleId: "org.example.rows\(n)",
                               name: n % 17 == 0 ? "Same Name" : "\(word(0).capitalized) \(word(1)) \(n % 13)",
                               subtitle: n % 4 == 0 ? "" : "The \(word(2)) app", description: "Keeps \(word(3)) and \(word(4)) in order, bench \(n).",
                               developerName: n % 3 == 0 ? "" : "Studio \(word(5))", access: n % 5 == 0 ? .account : .public)
            app.category = [nil, "books", "games", "productivity"][n % 4]
            app.featuredOrder = n % 11 == 0 ? (n % 2 == 0 ? -n : n) : nil
            app.iconSHA256 = n % 2 == 0 ? String(repeating: "ab", count: 32) : nil
            app.mediaJSON = n % 6 == 0 ? #"{"icon":{"sha256":"\#(n)"}}"# : nil
            if n % 9 == 0 { app.pricing = AppPricing(prices: [Price(currency: "EUR", amount: 100 + n), Price(currency: "USD", amount: 199)]) }
            if n % 14 == 0 { app.pricing = AppPricing(prices: app.pricing.prices, requiresEntitlement: "premium") }
            if n % 23 == 0 { app.availability = .takenDown }
            try await app.create(on: db)
            ids.append(id(n))
            let appID = try app.requireID()
            for v in 0..<(n % 4) {
                let minimumOS: [Platform: OSVersion] = v == 1 ? [.iOS: OSVersion("17.4")!, .iPadOS: OSVersion("18.0")!] : [.iOS: OSVersion("17.0")!]
                let version = AppVersionModel(appID: appID, appleVersionId: 100_000 + UInt64(n * 10 + v), bundleVersion: "\(v + 1)",
                                              shortVersionString: "\(v + 1).0", minimumOS: minimumOS,
                                              releaseDate: release.addingTimeInterval(Double(n * 3_600 + v * 86_400)))
                if v == 2 && n % 8 == 3 { version.withdrawnAt = release }
                // The newest version of some apps is still in review or was rejected.
                if v == n % 4 - 1 && n % 5 == 1 { version.reviewState = n % 10 == 1 ? .inReview : .rejected }
                if version.reviewState != .released { notReleased.insert(version.appleVersionId) }
                try await version.create(on: db)
            }
        }
        return (ids, notReleased)
    }

    @Test(arguments: TestBackend.available)
    func theCatalogIndexReadByPositionHoldsWhatSQLKitRead(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (ids, notReleased) = try await Self.seed(store)
            let index = CatalogIndex(database: store.database, refreshInterval: .seconds(3_600), loadPageSize: 64)
            let loaded = try await index.apps(ids + [1])
            let byName = try await index.load(only: Set(ids))
            #expect(loaded.count == Self.appCount && index.status.apps == Self.appCount)
            #expect(loaded == byName)
            let versions = loaded.values.flatMap { $0.versions + $0.withdrawnVersions }.map(\.appleVersionId)
            #expect(!notReleased.isEmpty && Set(versions).isDisjoint(with: notReleased))
            #expect(versions.count == Self.appCount / 4 * 6 - notReleased.count)
            let several = try #require(loaded[Self.id(3)])
            #expect(several.versions.map(\.appleVersionId) == [100_031, 100_030] && several.withdrawnVersions.map(\.appleVersionId) == [100_032])
            #expect(several.versions.first?.minimumOS == [.iOS: OSVersion("17.4")!, .iPadOS: OSVersion("18.0")!])
            #expect(several.versions.first?.platforms.map(\.rawValue).sorted() == ["ios", "ipados"])
            #expect(loaded[Self.id(0)]?.pricing.requiresEntitlement == "premium" && loaded[Self.id(9)]?.pricing.prices.count == 2)
            #expect(loaded[Self.id(23)]?.availability == .takenDown && loaded[Self.id(5)]?.access == .account)
        }
    }

    @Test(arguments: TestBackend.available)
    func theStorefrontIndexReadByPositionListsAndRanksAsSQLKitRead(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (ids, notReleased) = try await Self.seed(store)
            let index = StorefrontIndex(database: store.database, refreshInterval: .seconds(3_600), loadPageSize: 64)
            let loaded = try await index.catalog()
            let byName = try await index.load(only: Set(ids))
            #expect(loaded.count == Self.appCount - Self.appCount / 23 - 1 && byName.count == loaded.count)
            // Built at once from the same apps, and app by app (sorted insertion, the search overlay).
            var oneByOne = StorefrontCatalog()
            oneByOne.apply(byName.mapValues { Optional($0) })
            for reference in [StorefrontCatalog(Array(byName.values)), oneByOne] {
                #expect(loaded.byName == reference.byName)
                #expect(loaded.newest == reference.newest)
                #expect(loaded.byCategory == reference.byCategory)
                #expect(loaded.categoryCounts == reference.categoryCounts)
                #expect(loaded.featured == reference.featured)
                for query in Self.queries { #expect(loaded.search(query) == reference.search(query), "query \(query)") }
            }
            for (id, app) in byName {
                var listed = app
                listed.description = ""  // never kept
                #expect(loaded.apps[id] == listed)
            }
            #expect(!loaded.search("garden").isEmpty && !loaded.search("straße").isEmpty && !loaded.featured.isEmpty)
            // An app whose newest version is in review shows its latest released one.
            let latest = try await CatalogIndex(database: store.database, refreshInterval: .seconds(3_600)).app(Self.id(11))
            #expect(notReleased.contains(100_112) && loaded.apps[Self.id(11)]?.latestRelease == latest?.versions.first?.releaseDate)
        }
    }
}
