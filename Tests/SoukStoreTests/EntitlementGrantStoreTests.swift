import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// Promotional grants on both databases: they open their entitlement (and the products it
/// covers) through `grantedRecords` and the engine, in their account's environment, until they end
/// or are revoked; every change records its operator event and moves `commerce_changes`.
@Suite struct EntitlementGrantStoreTests {
    static let app = CommerceCatalogSamples.readerApp
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    final class Clock: Sendable {
        private let value = Mutex(EntitlementGrantStoreTests.start)
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    final class Changes: Sendable {
        let seen = Mutex<[String]>([])
    }

    struct Context {
        let fixture: StoreFixture
        let clock: Clock
        let changes: Changes
        let purchases: PurchaseStore
        let grants: EntitlementGrantStore
        let catalog: CommerceCatalogState
        let alice: UUID
        let sam: UUID

        func events() async throws -> [(type: String, source: String, environment: String, entitlement: String?, store: String?,
                                        payment: UUID?, expires: Date?, product: String?)] {
            try await fixture.database.sql.raw("""
                SELECT type, source, environment, entitlement_id, store, payment_id, expires_at, product_id FROM commerce_events
                ORDER BY occurred_at, type
                """).all().map { row in
                (try row.decode(column: "type", as: String.self), try row.decode(column: "source", as: String.self),
                 try row.decode(column: "environment", as: String.self), try row.decode(column: "entitlement_id", as: String?.self),
                 try row.decode(column: "store", as: String?.self), try row.decode(column: "payment_id", as: UUID?.self),
                 try row.decode(column: "expires_at", as: Date?.self), try row.decode(column: "product_id", as: String?.self))
            }
        }

        func snapshot(_ account: UUID, sandbox: Bool = false, at: Date? = nil) async throws -> EntitlementSnapshot {
            EntitlementEngine.evaluate(try await purchases.grantedRecords(account: account, app: EntitlementGrantStoreTests.app),
                                       catalog: catalog, environments: EntitlementEngine.environments(accountIsSandbox: sandbox, allowSandbox: false),
                                       at: at ?? clock.now)
        }
    }

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (Context) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let catalogs = CommerceCatalogStore(database: fixture.database)
            _ = try await catalogs.apply(CommerceCatalogSamples.reader)
            let alice = AccountModel(email: "alice@example.com", passwordHash: "x")
            try await alice.create(on: fixture.database.db)
            let sam = AccountModel(email: "sam@example.com", passwordHash: "x")
            sam.sandbox = true
            try await sam.create(on: fixture.database.db)
            let clock = Clock()
            let changes = Changes()
            let purchases = PurchaseStore(database: fixture.database, now: { clock.now }, onChange: { account, app in
                changes.seen.withLock { $0.append("\(account.uuidString)|\(app)") }
            })
            try await body(Context(fixture: fixture, clock: clock, changes: changes, purchases: purchases,
                                   grants: EntitlementGrantStore(purchases: purchases),
                                   catalog: try #require(try await catalogs.state(app: app)), alice: alice.id!, sam: sam.id!))
        }
    }

    @Test(arguments: TestBackend.available)
    func aGrantOpensItsEntitlementAndTheProductsItCoversUntilItEnds(backend: TestBackend) async throws {
        try await Self.with(backend) { (c: Context) async throws in
            let revisionBefore = try await c.purchases.revision()
            let until = Self.start.addingTimeInterval(7 * 86_400)
            let grant = try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "premium", until: until,
                                                 reason: "support ticket 42")
            #expect(grant.environment == .production)
            #expect(grant.startsAt == Self.start && grant.expiresAt == until && grant.revokedAt == nil && grant.reason == "support ticket 42")
            #expect(try await c.grants.grant(grant.id) == grant)
            #expect(try await c.purchases.grantedRecords(account: c.alice, app: Self.app) == [grant.record])
            #expect(grant.record == PurchaseRecord(paymentId: grant.id, productId: "", type: .nonConsumable, environment: .production,
                                                   purchaseDate: Self.start, expiresDate: until, grantedEntitlement: "premium"))

            let now = try await c.snapshot(c.alice, at: Self.start.addingTimeInterval(60))
            #expect(now.entitlements["premium"]?.isGrant == true)
            #expect(now.entitlements["premium"]?.expiresAt == until)
            // Every product whose entitlements premium covers; the yearly also needs book.1.
            #expect(now.productIds == ["reader.monthly", "reader.pass.30d"])
            #expect(now.activePurchases.isEmpty)
            #expect(try await c.snapshot(c.alice, at: until).entitlements.isEmpty)

            #expect(try await c.purchases.revision() == revisionBefore + 1)
            #expect(c.changes.seen.withLock { $0 } == ["\(c.alice.uuidString)|\(Self.app)"])
            let events = try await c.events()
            #expect(events.count == 1)
            #expect(events.first?.type == "grant" && events.first?.source == "operator" && events.first?.environment == "Production")
            #expect(events.first?.entitlement == "premium" && events.first?.store == "promotional" && events.first?.payment == grant.id)
            #expect(events.first?.expires == until && events.first?.product == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func aSandboxAccountsGrantIsSandboxAndForGoodWithoutAnEnd(backend: TestBackend) async throws {
        try await Self.with(backend) { (c: Context) async throws in
            let grant = try await c.grants.grant(account: c.sam, catalog: c.catalog.catalog, entitlement: "book.1", until: nil)
            #expect(grant.environment == .sandbox && grant.expiresAt == nil)
            #expect(try await c.snapshot(c.sam, sandbox: true, at: Self.start.addingTimeInterval(10 * 365 * 86_400))
                .productIds == ["reader.book.1"])
            // Sandbox never counts for production.
            #expect(try await c.snapshot(c.sam, sandbox: false).entitlements.isEmpty)
            #expect(try await c.events().map(\.environment) == ["Sandbox"])
        }
    }

    @Test(arguments: TestBackend.available)
    func revokingEndsTheGrantOnceAndRecordsOneEvent(backend: TestBackend) async throws {
        try await Self.with(backend) { (c: Context) async throws in
            let grant = try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "premium", until: nil)
            let other = try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "book.1", until: nil)
            c.clock.advance(3600)
            let revoked = try #require(try await c.grants.revoke(grant.id))
            #expect(revoked.revokedAt == c.clock.now)
            #expect(try await c.purchases.grantedRecords(account: c.alice, app: Self.app) == [other.record])
            #expect(try await c.snapshot(c.alice).entitlements.keys.sorted() == ["book.1"])
            c.clock.advance(60)
            #expect(try await c.grants.revoke(grant.id) == revoked)
            #expect(try await c.grants.revoke(UUID()) == nil)
            #expect(try await c.events().map(\.type) == ["grant", "grant", "grant_revoked"])
            // By entitlement: every unrevoked grant of it, once.
            #expect(try await c.grants.revoke(account: c.alice, app: Self.app, entitlement: "book.1").map(\.id) == [other.id])
            #expect(try await c.grants.revoke(account: c.alice, app: Self.app, entitlement: "book.1").isEmpty)
            #expect(try await c.snapshot(c.alice).entitlements.isEmpty)
            let listed = try await c.grants.list(account: c.alice, app: Self.app)
            #expect(listed.map(\.id) == [grant.id, other.id] || listed.map(\.id) == [other.id, grant.id])
            #expect(listed.allSatisfy { $0.revokedAt != nil })
            #expect(try await c.events().filter { $0.type == "grant_revoked" }.count == 2)
        }
    }

    @Test(arguments: TestBackend.available)
    func anUnknownEntitlementOrAnEndNotAheadIsRefusedAndNothingIsWritten(backend: TestBackend) async throws {
        try await Self.with(backend) { (c: Context) async throws in
            let unknown = await #expect(throws: EntitlementGrantError.self) {
                try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "gold", until: nil)
            }
            #expect(unknown?.description.contains("no entitlement \"gold\"") == true)
            #expect(unknown?.description.contains("premium, book.1") == true)
            let past = await #expect(throws: EntitlementGrantError.self) {
                try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "premium", until: Self.start)
            }
            #expect(past?.description.contains("not after now") == true)
            await #expect(throws: EntitlementGrantError.self) {
                try await c.grants.grant(account: UUID(), catalog: c.catalog.catalog, entitlement: "premium", until: nil)
            }
            #expect(try await c.grants.list(app: Self.app).isEmpty)
            #expect(try await c.events().isEmpty)
            #expect(try await c.purchases.revision() == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func anotherProcessesEntitlementIndexSeesTheGrantAndItsRevocation(backend: TestBackend) async throws {
        try await Self.with(backend) { (c: Context) async throws in
            let index = EntitlementIndex(database: c.fixture.database, refreshInterval: .zero)
            func premium() async throws -> ProductAccess? {
                try await index.snapshot(account: c.alice, app: Self.app, catalog: c.catalog, environments: [.production],
                                         at: c.clock.now).entitlements["premium"]
            }
            #expect(try await premium() == nil)
            // This store does not tell the index (another process's write): commerce_changes does.
            let grant = try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "premium", until: nil)
            #expect(try await premium()?.paymentId == grant.id)
            try await c.grants.revoke(grant.id)
            #expect(try await premium() == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func deletingTheAccountDeletesItsGrants(backend: TestBackend) async throws {
        try await Self.with(backend) { (c: Context) async throws in
            _ = try await c.grants.grant(account: c.alice, catalog: c.catalog.catalog, entitlement: "premium", until: nil)
            try await c.fixture.database.sql.raw("DELETE FROM accounts WHERE id = \(bind: c.alice)").run()
            #expect(try await c.grants.list(app: Self.app).isEmpty)
        }
    }
}
