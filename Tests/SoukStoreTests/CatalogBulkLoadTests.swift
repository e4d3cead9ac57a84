import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// `CatalogStore.bulkAdd` (the synthetic catalogs of `souk bench seed-catalog`): `COPY` on
/// PostgreSQL, models on SQLite. Both write what the app-by-app path writes, all or nothing, and a
/// running index sees the new apps.
@Suite struct CatalogBulkLoadTests {
    static let release = Date(timeIntervalSince1970: 1_767_225_600.5)

    static func app(_ i: Int) -> BulkApp {
        // Tabs, newlines, backslashes and non-ASCII text must survive COPY's text format.
        let name = i == 3 ? "Tab\there\\back\nslash\r café" : "Bulk \(i)"
        return BulkApp(appleItemId: 9_100_000_000 + UInt64(i), bundleId: "org.example.bulk\(i)", name: name,
                       subtitle: i % 2 == 0 ? "" : "Sub \(i)", description: "Words \(i) 日記", developerName: "Dev \(i % 3)",
                       category: i % 4 == 0 ? nil : "books", appleVersionId: 9_200_000_000 + UInt64(i), bundleVersion: "\(i + 1)",
                       shortVersionString: "1.\(i)", minimumOS: i == 5 ? [.iOS: OSVersion("17.4")!, .iPadOS: OSVersion("18.0")!] : [.iOS: OSVersion("17.0")!],
                       releaseDate: release.addingTimeInterval(Double(i / 4) * 86_400))
    }

    @Test(arguments: TestBackend.available)
    func bulkAppsAreStoredAsTheAppByAppPathStoresThemAndARunningIndexSeesThem(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            try await store.catalog.createApp(AppModel(appleItemId: 1, bundleId: "org.example.first", name: "First"))
            let index = CatalogIndex(database: store.database, refreshInterval: .zero)
            #expect(try await index.app(1) != nil)

            try await store.catalog.bulkAdd(count: 12) { Self.app($0) }

            for i in 0..<12 {
                let expected = Self.app(i)
                let record = try await store.catalog.appRecord(appleItemId: expected.appleItemId)
                #expect(record.bundleId == expected.bundleId)
                #expect(record.name == expected.name)
                #expect(record.subtitle == expected.subtitle)
                #expect(record.appDescription == expected.description)
                #expect(record.developerName == expected.developerName)
                #expect(record.category == expected.category)
                #expect(record.access == .public)
                #expect(record.availability == .available)
                #expect(record.createdAt != nil)
                let versions = try await store.catalog.versions(of: record)
                #expect(versions.count == 1)
                #expect(versions.first?.appleVersionId == expected.appleVersionId)
                #expect(versions.first?.bundleVersion == expected.bundleVersion)
                #expect(versions.first?.shortVersionString == expected.shortVersionString)
                #expect(versions.first?.platforms == expected.minimumOS.keys.map(\.rawValue).sorted())
                #expect(versions.first?.minimumOS == Dictionary(uniqueKeysWithValues: expected.minimumOS.map { ($0.key.rawValue, $0.value.description) }))
                #expect(versions.first?.requiredCapabilities == [])
                #expect(abs((versions.first?.releaseDate.timeIntervalSince(expected.releaseDate)) ?? 99) < 0.001)
                #expect(versions.first?.reviewState == .released)
                // The index that was loaded before sees every new app with its version.
                let indexed = try await index.app(expected.appleItemId)
                #expect(indexed?.versions.map(\.appleVersionId) == [expected.appleVersionId])
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aBulkLoadWithATakenIdAddsNothingAndLeavesTheChangeLogWorking(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            try await store.catalog.createApp(AppModel(appleItemId: Self.app(7).appleItemId, bundleId: "org.example.taken", name: "Taken"))
            let index = CatalogIndex(database: store.database, refreshInterval: .zero)
            #expect(try await index.app(Self.app(7).appleItemId)?.bundleId == "org.example.taken")

            await #expect(throws: (any Error).self) {
                try await store.catalog.bulkAdd(count: 12) { Self.app($0) }
            }
            #expect(try await store.catalog.appRecords().count == 1)
            #expect(try await index.app(Self.app(0).appleItemId) == nil)

            // The change log still records an app added one by one: the index reads it incrementally.
            try await store.catalog.createApp(AppModel(appleItemId: 2, bundleId: "org.example.second", name: "Second"))
            #expect(try await index.app(2)?.bundleId == "org.example.second")
        }
    }
}
