import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct CatalogIndexTests {
    @Test(arguments: TestBackend.available)
    func followsEveryChangeThroughTheChangeLog(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let strict = CatalogIndex(database: store.database, refreshInterval: .zero)
            // A second "process" that only looks when told to.
            let lazy = CatalogIndex(database: store.database, refreshInterval: .seconds(3600))
            #expect(try await strict.apps([6_500_000_001]).isEmpty)
            #expect(try await lazy.apps([6_500_000_001]).isEmpty)

            _ = try await store.importer.importPackage(at: try await store.makeSample())
            let app = try #require(try await strict.app(6_500_000_001))
            #expect(app.bundleId == "org.example.sample")
            #expect(app.versions.map(\.appleVersionId) == [9_000_000_001])
            #expect(app.availability == .available)
            #expect(try await lazy.app(6_500_000_001) == nil)  // not looked yet
            try await lazy.refresh()
            #expect(try await lazy.app(6_500_000_001) == app)

            // A second version, newest first.
            _ = try await store.importer.importPackage(at: try await store.makeSample(appleVersionId: 9_000_000_002))
            #expect(try await strict.app(6_500_000_001)?.versions.map(\.appleVersionId) == [9_000_000_002, 9_000_000_001])

            try await store.catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown)
            #expect(try await strict.app(6_500_000_001)?.availability == .takenDown)

            // Changes made outside Souk (an operator with psql) are seen too: the triggers log them.
            try await store.database.sql.raw("DELETE FROM apps WHERE apple_item_id = \(bind: Int64(6_500_000_001))").run()
            #expect(try await strict.app(6_500_000_001) == nil)
            try await lazy.refresh()
            #expect(try await lazy.app(6_500_000_001) == nil)
            #expect(strict.status.revision == lazy.status.revision)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPrunedChangeLogFallsBackToAFullReload(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let index = CatalogIndex(database: store.database, refreshInterval: .seconds(3600))
            _ = try await index.apps([1])
            _ = try await store.importer.importPackage(at: try await store.makeSample())
            try await store.database.sql.raw("DELETE FROM catalog_changes").run()
            try await index.refresh()
            #expect(try await index.app(6_500_000_001)?.versions.count == 1)
            #expect(index.status.apps == 1)
        }
    }

    @Test func manyIdsAreAnsweredFromOneCopy() async throws {
        try await StoreFixture.with(.sqlite) { store in
            for id in UInt64(1)...50 {
                try await store.catalog.createApp(AppModel(appleItemId: id, bundleId: "org.example.a\(id)", name: "A\(id)"))
            }
            let index = CatalogIndex(database: store.database, refreshInterval: .seconds(3600))
            let found = try await index.apps(Array(UInt64(1)...60) + [7, 7])
            #expect(found.count == 50)
            #expect(found[7]?.bundleId == "org.example.a7")
        }
    }
}
