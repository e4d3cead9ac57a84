import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct CatalogStoreTests {
    @Test(arguments: TestBackend.available)
    func appleIdsRoundTripTheWholeUInt64Range(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            for id in [UInt64.max, UInt64(Int64.max) + 1, 1] {
                try await store.catalog.createApp(AppModel(appleItemId: id, bundleId: "org.example.\(id)", name: "App \(id)"))
                #expect(try await store.catalog.app(appleItemId: id).appleItemId == id)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aSecondAppWithTheSameAppleItemIdIsADuplicate(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            try await store.catalog.createApp(AppModel(appleItemId: 42, bundleId: "org.example.a", name: "A"))
            await #expect(throws: CatalogError.duplicate("an app with AppleItemID 42 already exists")) {
                try await store.catalog.createApp(AppModel(appleItemId: 42, bundleId: "org.example.b", name: "B"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func takedownHidesPackagesAndReinstateBringsThemBack(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            _ = try await store.importer.importPackage(at: try await store.makeSample())
            let query = HostedFileQuery(database: store.database)
            #expect(try await query.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "signature") != nil)
            let app = try await store.catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown, reason: "policy")
            #expect(app.takedownReason == "policy")
            #expect(try await query.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "signature") == nil)
            try await store.catalog.setAvailability(appleItemId: 6_500_000_001, to: .available)
            #expect(try await query.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "signature") != nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func emailsAreCaseInsensitiveAndUnique(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let account = try await store.catalog.createAccount(email: " Ada@Example.COM ", passwordHash: "x")
            #expect(account.email == "ada@example.com")
            await #expect(throws: CatalogError.self) {
                try await store.catalog.createAccount(email: "ADA@example.com", passwordHash: "y")
            }
            await #expect(throws: CatalogError.invalid("not-an-email is not an email address")) {
                try await store.catalog.createAccount(email: "not-an-email", passwordHash: "y")
            }
        }
    }

    @Test func ciMustRunThePostgreSQLTests() {
        // CI sets CI=true; there, a missing PostgreSQL is a failure, never a silent skip.
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(TestBackend.postgresURL != nil, "CI must export SOUK_TEST_POSTGRES_URL (see .ci/run)")
        }
        #expect(TestBackend.available.contains(.sqlite))
    }
}

@Suite struct HostedFileCacheTests {
    @Test(arguments: TestBackend.available)
    func answersFromMemoryUntilTheLifetimeEnds(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            _ = try await store.importer.importPackage(at: try await store.makeSample())
            let query = HostedFileQuery(database: store.database)
            let cached = HostedFileCache(query: query, lifetime: .seconds(60))
            let fresh = HostedFileCache(query: query, lifetime: .zero)
            #expect(try await cached.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "signature") != nil)
            #expect(try await cached.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "nope") == nil)

            try await store.catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown)
            // Within its lifetime the cache still answers what it saw; a zero lifetime sees the takedown.
            #expect(try await cached.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "signature") != nil)
            #expect(try await fresh.find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "signature") == nil)
        }
    }

    @Test func staysWithinItsCapacity() async throws {
        try await StoreFixture.with(.sqlite) { store in
            let cache = HostedFileCache(query: HostedFileQuery(database: store.database), lifetime: .seconds(60), capacity: 3)
            for index in 0..<10 {
                let found = try await cache.find(appleItemId: 1, appleVersionId: UInt64(index), path: "manifest.json")
                #expect(found == nil)
                #expect(cache.count <= 3)
            }
            #expect(cache.count >= 1)
        }
    }
}

@Suite struct ShortLivedCacheTests {
    actor Loads {
        var batches: [[Int]] = []
        func add(_ keys: [Int]) { batches.append(keys.sorted()) }
    }

    @Test func loadsOnlyWhatItDoesNotHoldInOneBatchAndRemembersAbsence() async throws {
        let cache = ShortLivedCache<Int, String>(lifetime: .seconds(60))
        let loads = Loads()
        func fetch(_ keys: [Int]) async throws -> [Int: String] {
            try await cache.values(for: keys) { missing in
                await loads.add(missing)
                return Dictionary(uniqueKeysWithValues: missing.filter { $0 % 2 == 0 }.map { ($0, "v\($0)") })
            }
        }
        #expect(try await fetch([1, 2, 3, 4]) == [2: "v2", 4: "v4"])
        #expect(try await fetch([2, 3, 4, 5, 6]) == [2: "v2", 4: "v4", 6: "v6"])
        #expect(await loads.batches == [[1, 2, 3, 4], [5, 6]])
        #expect(cache.count == 6)
    }

    @Test func aFullCacheKeepsTheKeyInUseAndEvictsTheLeastRecentlyUsed() async throws {
        let cache = ShortLivedCache<Int, Int>(lifetime: .seconds(60), capacity: 3)
        let loads = Loads()
        for stranger in 2...9 {
            for key in [1, stranger] {
                _ = try await cache.values(for: [key]) { missing in
                    await loads.add(missing)
                    return Dictionary(uniqueKeysWithValues: missing.map { ($0, $0) })
                }
            }
            #expect(cache.count <= 3)
        }
        // Asked about between every stranger: loaded once (a cache that empties when full loaded it again).
        #expect(await loads.batches == [[1]] + (2...9).map { [$0] })
        #expect(cache.statistics.evictions == 6)
    }

    @Test func aZeroLifetimeAlwaysLoads() async throws {
        let cache = ShortLivedCache<Int, Int>(lifetime: .zero)
        let loads = Loads()
        for _ in 0..<3 {
            _ = try await cache.values(for: [7]) { missing in
                await loads.add(missing)
                return [7: 7]
            }
        }
        #expect(await loads.batches.count == 3)
    }
}
