import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct CommerceCatalogStoreTests {
    @Test(arguments: TestBackend.available)
    func applyingAFileTwiceChangesNothingTheSecondTime(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            let first = try await store.apply(CommerceCatalogSamples.reader)
            #expect(first.applied)
            #expect(first.revision == 1)
            #expect(first.diff.addedProducts.count == 5)
            let second = try await store.apply(CommerceCatalogSamples.reader)
            #expect(!second.applied)
            #expect(second.unchanged)
            #expect(second.revision == 1)
            #expect(second.description.contains("no change"))
            let state = try #require(try await store.state(app: CommerceCatalogSamples.readerApp))
            #expect(state.catalog == CommerceCatalogSamples.reader)
            #expect(state.revision == 1)
            #expect(state.retired.isEmpty)
            #expect(try await store.apps() == [CommerceCatalogSamples.readerApp])
        }
    }

    @Test(arguments: TestBackend.available)
    func aDryRunReportsTheDiffAndWritesNothing(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            let report = try await store.apply(CommerceCatalogSamples.reader, dryRun: true)
            #expect(report.dryRun && !report.applied)
            #expect(report.diff.createsApp)
            #expect(try await store.state(app: CommerceCatalogSamples.readerApp) == nil)
            #expect(try await store.apps().isEmpty)
            _ = try await store.apply(CommerceCatalogSamples.reader)
            var changed = CommerceCatalogSamples.reader
            changed.products[0].prices[0].amount = 599
            let dry = try await store.apply(changed, dryRun: true)
            #expect(dry.diff.changedProducts == [CatalogDiff.ProductChange(id: "reader.monthly", fields: ["prices"])])
            let state = try #require(try await store.state(app: CommerceCatalogSamples.readerApp))
            #expect(state.catalog.products[0].prices[0].amount == 499)
            #expect(state.revision == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func aProductLeftOutIsRetiredKeptAndItsIdNeverReused(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            _ = try await store.apply(CommerceCatalogSamples.reader)
            var smaller = CommerceCatalogSamples.reader
            let book = smaller.products.remove(at: 3)
            let report = try await store.apply(smaller)
            #expect(report.diff.retiredProducts == ["reader.book.1"])
            #expect(report.revision == 2)
            let state = try #require(try await store.state(app: CommerceCatalogSamples.readerApp))
            #expect(state.catalog.products.map(\.id) == ["reader.monthly", "reader.yearly", "reader.coins.100", "reader.pass.30d"])
            #expect(state.retired == [book])
            #expect(state.onSale("reader.book.1") == nil)
            #expect(state.product("reader.book.1") == book)
            #expect(state.product(store: .googlePlay, sku: "book_1") == book)

            // Putting it back is refused, naming its place in the file; nothing changes.
            let error = await #expect(throws: CatalogFileError.self) { try await store.apply(CommerceCatalogSamples.reader) }
            #expect(error?.path == "products[3].id")
            var renamed = CommerceCatalogSamples.reader
            renamed.products[3].id = "reader.book.1b"
            let skuError = await #expect(throws: CatalogFileError.self) { try await store.apply(renamed) }
            #expect(skuError?.path == "products[3].skus.google_play")
            let after = try #require(try await store.state(app: CommerceCatalogSamples.readerApp))
            #expect(after.revision == 2)
            #expect(after.retired == [book])
        }
    }

    @Test(arguments: TestBackend.available)
    func anInvalidCatalogNamesItsPathAndAppliesNothing(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            var broken = CommerceCatalogSamples.reader
            broken.products[2].entitlements = ["premium"]
            let error = await #expect(throws: CatalogFileError.self) { try await store.apply(broken) }
            #expect(error?.path == "products[2].entitlements")
            let apps = try await store.apps()
            #expect(apps.isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func everyChangeMovesTheRevisionAndALaterSecond(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let clock = TestClock()
            let store = CommerceCatalogStore(database: fixture.database, now: { clock.now })
            let first = try await store.apply(CommerceCatalogSamples.reader)
            var changed = CommerceCatalogSamples.reader
            changed.allowSandbox = false
            changed.products.swapAt(0, 1)
            let second = try await store.apply(changed)
            #expect(second.diff.allowSandbox?.to == false)
            #expect(second.diff.reordered)
            #expect(first.revision == 1 && second.revision == 2)
            let state = try #require(try await store.state(app: CommerceCatalogSamples.readerApp))
            // Same instant on the clock, yet a later Last-Modified second.
            #expect(state.modifiedAt.timeIntervalSince1970 == clock.now.timeIntervalSince1970.rounded(.down) + 1)
            #expect(state.catalog.products.first?.id == "reader.yearly")
        }
    }

    @Test(arguments: TestBackend.available)
    func concurrentAppliesOfOneFileWriteOnce(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            _ = try await store.apply(CommerceCatalog(app: CommerceCatalogSamples.readerApp))
            let reports = try await withThrowingTaskGroup(of: CatalogApplyReport?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do { return try await store.apply(CommerceCatalogSamples.reader) } catch { return nil }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let applied = reports.compactMap { $0 }.filter(\.applied)
            #expect(applied.count == 1)
            let state = try #require(try await store.state(app: CommerceCatalogSamples.readerApp))
            #expect(state.revision == 2)
            #expect(state.catalog == CommerceCatalogSamples.reader)
        }
    }

    @Test(arguments: TestBackend.available)
    func theCacheSeesAChangeAtOnceWithARefreshOfZero(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            let cache = CommerceCatalogCache(store: store, refreshInterval: .zero, logger: testLogger())
            #expect(try await cache.state(app: CommerceCatalogSamples.readerApp) == nil)
            _ = try await store.apply(CommerceCatalogSamples.reader)
            #expect(try await cache.state(app: CommerceCatalogSamples.readerApp)?.revision == 1)

            let slow = CommerceCatalogCache(store: store, refreshInterval: .seconds(3600), logger: testLogger())
            #expect(try await slow.state(app: CommerceCatalogSamples.readerApp)?.revision == 1)
            var changed = CommerceCatalogSamples.reader
            changed.products.removeLast()
            _ = try await store.apply(changed)
            // Held for the refresh interval, read again once told.
            #expect(try await slow.state(app: CommerceCatalogSamples.readerApp)?.revision == 1)
            slow.invalidate(app: CommerceCatalogSamples.readerApp)
            #expect(try await slow.state(app: CommerceCatalogSamples.readerApp)?.revision == 2)
        }
    }
}
