import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Testing

/// Both in-memory indexes read a full catalog in pages of apps by Apple item id, and keep it packed
/// (`PackedCatalogApps`, `StorefrontRecords`, `SearchPostings`): what they answer is what one
/// query for everything gave, on both databases.
@Suite struct CatalogIndexPagedLoadTests {
    static let release = Date(timeIntervalSince1970: 1_767_225_600)

    /// Seven apps: one with two versions and a withdrawn one, one taken down, one with a price,
    /// one without versions, and words placed so that search ranks name > developer/subtitle >
    /// description.
    static func seed(_ store: StoreFixture) async throws {
        let apps: [(UInt64, String, String, String, String)] = [
            (101, "Garden Planner", "Plan your beds", "Green Thumb", "Seeds and weather."),
            (102, "Weather Now", "Forecasts", "Garden Labs", "Rain and sun."),
            (103, "Recipes", "Cook", "Kitchen Co", "Herbs from the garden."),
            (104, "Gardener's Diary", "Notes", "Acme", "A diary."),
            (105, "Taken Garden", "Gone", "Acme", "Never listed."),
            (106, "Café Crème", "Kaffee", "Bäckerei Ünal", "Coffee."),
            (107, "Empty", "", "", "No versions yet."),
        ]
        for (id, name, subtitle, developer, description) in apps {
            let app = try await store.catalog.createApp(AppModel(appleItemId: id, bundleId: "org.example.paged\(id)", name: name,
                                                                 subtitle: subtitle, description: description, developerName: developer))
            guard id != 107 else { continue }
            let appID = try app.requireID()
            let version = AppVersionModel(appID: appID, appleVersionId: 9_000 + id, bundleVersion: "1", shortVersionString: "1.0",
                                          minimumOS: [.iOS: OSVersion("17.0")!], releaseDate: release.addingTimeInterval(Double(id)))
            try await version.create(on: store.database.db)
            if id == 101 {
                try await AppVersionModel(appID: appID, appleVersionId: 9_201, bundleVersion: "2", shortVersionString: "2.0",
                                          minimumOS: [.iOS: OSVersion("17.4")!, .iPadOS: OSVersion("18.0")!],
                                          releaseDate: release.addingTimeInterval(86_400)).create(on: store.database.db)
                let withdrawn = AppVersionModel(appID: appID, appleVersionId: 9_301, bundleVersion: "3", shortVersionString: "3.0",
                                                minimumOS: [.iOS: OSVersion("18.0")!], releaseDate: release.addingTimeInterval(2 * 86_400))
                withdrawn.withdrawnAt = release
                try await withdrawn.create(on: store.database.db)
            }
        }
        _ = try await store.catalog.setAvailability(appleItemId: 105, to: .takenDown)
        try await store.database.sql.raw("UPDATE apps SET prices = \(bind: #"[{"currency":"EUR","amount":199}]"#) WHERE apple_item_id = 103").run()
    }

    @Test(arguments: TestBackend.available)
    func theCatalogIndexReadInPagesHoldsWhatOneQueryRead(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            try await Self.seed(store)
            let paged = CatalogIndex(database: store.database, refreshInterval: .seconds(3600), loadPageSize: 2)
            let whole = CatalogIndex(database: store.database, refreshInterval: .seconds(3600))
            let ids = Array(UInt64(100)...108)
            let found = try await paged.apps(ids)
            #expect(found == (try await whole.apps(ids)))
            #expect(found.count == 7 && paged.status.apps == 7)
            let garden = try #require(found[101])
            #expect(garden.bundleId == "org.example.paged101")
            #expect(garden.versions.map(\.appleVersionId) == [9_201, 9_101])
            #expect(garden.withdrawnVersions.map(\.appleVersionId) == [9_301])
            #expect(garden.versions.first?.minimumOS == [.iOS: OSVersion("17.4")!, .iPadOS: OSVersion("18.0")!])
            #expect(garden.versions.first?.releaseDate == Self.release.addingTimeInterval(86_400))
            #expect(found[105]?.availability == .takenDown)
            #expect(found[103]?.pricing.isFree == false)
            #expect(found[107]?.versions.isEmpty == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func theStorefrontIndexReadInPagesRanksAndListsAsBefore(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            try await Self.seed(store)
            let index = StorefrontIndex(database: store.database, refreshInterval: .zero, loadPageSize: 2)
            let catalog = try await index.catalog()
            #expect(catalog.count == 6)  // 105 is taken down
            // Name (a prefix of the name first), then developer or subtitle, then description.
            #expect(catalog.search("garden") == [101, 104, 102, 103])
            #expect(catalog.search("gard") == [101, 104, 102, 103])
            #expect(catalog.search("creme") == [106] && catalog.search("UNAL") == [106])
            #expect(catalog.byName == [106, 107, 101, 104, 103, 102])
            #expect(catalog.newest.first == 101 && catalog.newest.last == 107)
            #expect(catalog.apps[101]?.latestRelease == Self.release.addingTimeInterval(86_400))  // the withdrawn 3.0 is not counted
            #expect(catalog.apps[106]?.name == "Café Crème" && catalog.apps[106]?.developer == "Bäckerei Ünal")
            #expect(catalog.apps[103]?.pricing.isFree == false && catalog.apps[105] == nil)

            // Changes follow through the change log, into the same ranking.
            try await store.database.sql.raw("UPDATE apps SET name = 'Garden Recipes' WHERE apple_item_id = 103").run()
            _ = try await store.catalog.setAvailability(appleItemId: 105, to: .available)
            let changed = try await index.catalog()
            #expect(changed.search("garden") == [101, 103, 104, 105, 102])
            try await store.database.sql.raw("DELETE FROM apps WHERE apple_item_id = 101").run()
            #expect(try await index.catalog().search("garden") == [103, 104, 105, 102])
        }
    }
}
