import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// `commerce_events`: one event per (app, dedup key) however often the change is told, listed
/// oldest first, and rows a newer Souk wrote with values this version does not know left out.
@Suite struct CommerceEventStoreTests {
    @Test(arguments: TestBackend.available)
    func anEventIsRecordedOnceAndListedOldestFirst(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let account = AccountModel(email: "events@example.com", passwordHash: "unused")
            try await account.create(on: fixture.database.db)
            let id = try account.requireID()
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            func event(_ type: LifecycleEventType, _ key: String, _ offset: TimeInterval) -> CommerceEvent {
                CommerceEvent(app: "org.example.app", accountId: id, type: type, source: .notification, environment: .sandbox,
                              occurredAt: at.addingTimeInterval(offset), createdAt: at, productId: "p", store: "apple_store",
                              transactionId: key, dedupKey: "\(type.rawValue)|apple_store|\(key)")
            }
            let sql = fixture.database.sql
            #expect(try await CommerceEventStore.record(event(.renewal, "2", 60), on: sql))
            #expect(try await CommerceEventStore.record(event(.initialPurchase, "1", 0), on: sql))
            // The same change told again (a replayed notification, a reconciliation): no second event.
            #expect(try await CommerceEventStore.record(event(.renewal, "2", 60), on: sql) == false)
            try await sql.raw("""
                INSERT INTO commerce_events (id, app, account_id, type, source, environment, occurred_at, created_at, dedup_key)
                VALUES (\(bind: UUID()), 'org.example.app', \(bind: id), 'future_type', 'intake', 'Sandbox', \(bind: at), \(bind: at), 'x')
                """).run()
            let listed = try await CommerceEventStore(database: fixture.database).list(account: id, app: "org.example.app", limit: 10)
            #expect(listed.map(\.type) == [.initialPurchase, .renewal])
            #expect(listed.map(\.transactionId) == ["1", "2"] && listed.allSatisfy { $0.environment == .sandbox && $0.source == .notification })
        }
    }
}
