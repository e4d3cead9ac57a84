import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// Webhook endpoints and the delivery outbox on both databases: events are queued once per
/// endpoint (only those recorded after it was added), claimed by one worker at a time, retried
/// until their window passes, and redelivered under the same event id.
@Suite struct WebhookStoreTests {
    static let app = "org.example.reader"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    final class Clock: Sendable {
        private let value = Mutex(WebhookStoreTests.start)
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    /// Inserts a lifecycle event as the event writer would (this suite does not depend on it).
    static func insertEvent(_ database: SoukDatabase, app: String = app, account: UUID, type: String = "renewal",
                            environment: String = "Production", createdAt: Date) async throws -> UUID {
        let id = UUID()
        try await database.sql.raw("""
            INSERT INTO commerce_events (id, app, account_id, type, source, environment, occurred_at, created_at, product_id, store,
            transaction_id, original_transaction_id, dedup_key)
            VALUES (\(bind: id), \(bind: app), \(bind: account), \(bind: type), 'notification', \(bind: environment), \(bind: createdAt),
            \(bind: createdAt), 'reader.monthly', 'apple_store', \(bind: "t-\(id)"), 'o-1', \(bind: "\(type)|\(id)"))
            """).run()
        return id
    }

    static func with(_ backend: TestBackend, window: TimeInterval = 3 * 86_400,
                     _ body: @escaping @Sendable (StoreFixture, WebhookStore, Clock, UUID) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let account = AccountModel(email: "alice@example.com", passwordHash: "x")
            try await account.create(on: fixture.database.db)
            let clock = Clock()
            try await body(fixture, WebhookStore(database: fixture.database, retryWindow: window, now: { clock.now }), clock, account.id!)
        }
    }

    @Test(arguments: TestBackend.available)
    func endpointsAreValidatedAndListedWithoutTheirSecret(backend: TestBackend) async throws {
        try await Self.with(backend) { _, store, _, _ in
            await #expect(throws: WebhookStoreError.self) { try await store.add(app: Self.app, url: "ftp://example.com/x", secret: "0123456789abcdef") }
            await #expect(throws: WebhookStoreError.self) { try await store.add(app: Self.app, url: "https://example.com/x", secret: "short") }
            let endpoint = try await store.add(app: Self.app, url: "https://hooks.example.com/souk", secret: "0123456789abcdef")
            await #expect(throws: WebhookStoreError.self) { try await store.add(app: Self.app, url: "https://hooks.example.com/souk", secret: "0123456789abcdef") }
            #expect(try await store.endpoints(app: Self.app) == [endpoint])
            #expect(try await store.endpoints(app: "other.app").isEmpty)
            #expect(!"\(endpoint)".contains("0123456789abcdef"))
            #expect(WebhookStore.isInsecure(url: "http://hooks.example.com/x"))
            #expect(!WebhookStore.isInsecure(url: "http://127.0.0.1:8080/x") && !WebhookStore.isInsecure(url: "https://hooks.example.com/x"))
        }
    }

    @Test(arguments: TestBackend.available)
    func onlyEventsAfterTheEndpointAreQueuedAndEachOnce(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store, clock, account in
            _ = try await Self.insertEvent(fixture.database, account: account, createdAt: clock.now.addingTimeInterval(-10))
            clock.advance(1)
            let first = try await store.add(app: Self.app, url: "https://a.example.com/hook", secret: "0123456789abcdef")
            let second = try await store.add(app: Self.app, url: "https://b.example.com/hook", secret: "fedcba9876543210")
            clock.advance(1)
            let event = try await Self.insertEvent(fixture.database, account: account, createdAt: clock.now)
            _ = try await Self.insertEvent(fixture.database, app: "other.app", account: account, createdAt: clock.now)
            // Two processes queueing at once still queue each (event, endpoint) once.
            async let one = store.enqueue()
            async let two = WebhookStore(database: fixture.database, now: { clock.now }).enqueue()
            _ = try await (one, two)
            #expect(try await store.enqueue() == 0)
            let deliveries = try await store.deliveries(app: Self.app)
            #expect(deliveries.count == 2)
            #expect(Set(deliveries.map(\.endpointId)) == [first.id, second.id])
            #expect(deliveries.allSatisfy { $0.eventId == event && $0.status == .pending && $0.attempts == 0 })
        }
    }

    @Test(arguments: TestBackend.available)
    func twoWorkersNeverClaimTheSameAttempt(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store, clock, account in
            _ = try await store.add(app: Self.app, url: "https://a.example.com/hook", secret: "0123456789abcdef")
            clock.advance(1)
            let event = try await Self.insertEvent(fixture.database, account: account, type: "refund", environment: "Sandbox", createdAt: clock.now)
            try await store.enqueue()
            let other = WebhookStore(database: fixture.database, now: { clock.now })
            async let a = store.claimDue()
            async let b = other.claimDue()
            let claims = [try await a, try await b].compactMap { $0 }
            #expect(claims.count == 1)
            let claim = try #require(claims.first)
            #expect(claim.event.id == event && claim.event.type == .refund && claim.event.environment == .sandbox)
            #expect(claim.email == "alice@example.com" && claim.secret == "0123456789abcdef" && claim.attempt == 1)
            #expect(claim.deadline == clock.now.addingTimeInterval(3 * 86_400))
            // Leased: nothing else is due until the lease runs out.
            #expect(try await other.claimDue() == nil)
            clock.advance(WebhookStore.lease + 1)
            let taken = try #require(try await other.claimDue())
            #expect(taken.attempt == 2)
            // The first worker's late outcome does not overwrite the new attempt.
            try await store.recordSuccess(claim, status: 200)
            #expect(try await store.deliveries(app: Self.app).first?.status == .pending)
            try await other.recordSuccess(taken, status: 204)
            let delivered = try #require(try await store.deliveries(app: Self.app).first)
            #expect(delivered.status == .delivered && delivered.lastStatus == 204 && delivered.deliveredAt == clock.now)
        }
    }

    @Test(arguments: TestBackend.available)
    func failuresAreRetriedUntilTheWindowThenFailedAndRedeliveryRequeuesTheSameEvent(backend: TestBackend) async throws {
        try await Self.with(backend, window: 600) { fixture, store, clock, account in
            _ = try await store.add(app: Self.app, url: "https://a.example.com/hook", secret: "0123456789abcdef")
            clock.advance(1)
            let event = try await Self.insertEvent(fixture.database, account: account, createdAt: clock.now)
            try await store.enqueue()
            let first = try #require(try await store.claimDue())
            #expect(try await store.recordFailure(first, status: 500, error: "the receiver answered 500",
                                                  retryAt: clock.now.addingTimeInterval(300)) == .pending)
            #expect(try await store.claimDue() == nil)
            clock.advance(300)
            let second = try #require(try await store.claimDue())
            #expect(second.attempt == 2)
            #expect(try await store.recordFailure(second, status: nil, error: "timed out", retryAt: clock.now.addingTimeInterval(600)) == .failed)
            clock.advance(3600)
            #expect(try await store.claimDue() == nil)
            var shown = try #require(try await store.deliveries(app: Self.app).first)
            #expect(shown.status == .failed && shown.attempts == 2 && shown.lastStatus == nil && shown.lastError == "timed out")

            await #expect(throws: WebhookStoreError.self) { try await store.redeliver(app: "other.app", event: event) }
            #expect(try await store.redeliver(app: Self.app, event: event) == 1)
            shown = try #require(try await store.deliveries(app: Self.app).first)
            #expect(shown.status == .pending && shown.eventId == event)
            let again = try #require(try await store.claimDue())
            #expect(again.event.id == event && again.attempt == 3 && again.deadline == clock.now.addingTimeInterval(600))
            try await store.recordSuccess(again, status: 200)
            #expect(try await store.deliveries(app: Self.app).count == 1)
        }
    }

    /// An endpoint added after an event did not ask for it: redelivery goes only to the endpoints
    /// that were subscribed when the event happened, also for an event not queued yet.
    @Test(arguments: TestBackend.available)
    func redeliveryGoesOnlyToEndpointsSubscribedWhenTheEventHappened(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store, clock, account in
            let early = try await store.add(app: Self.app, url: "https://early.example.com/hook", secret: "0123456789abcdef")
            clock.advance(1)
            let delivered = try await Self.insertEvent(fixture.database, account: account, createdAt: clock.now)
            try await store.enqueue()
            let notQueued = try await Self.insertEvent(fixture.database, account: account, createdAt: clock.now)
            clock.advance(1)
            let late = try await store.add(app: Self.app, url: "https://late.example.com/hook", secret: "fedcba9876543210")
            _ = try await store.add(app: "other.app", url: "https://other.example.com/hook", secret: "fedcba9876543210")

            #expect(try await store.redeliver(app: Self.app, event: delivered) == 1)
            #expect(try await store.redeliver(app: Self.app, event: notQueued) == 1)
            let deliveries = try await store.deliveries(app: Self.app)
            #expect(Set(deliveries.map(\.eventId)) == [delivered, notQueued])
            #expect(deliveries.allSatisfy { $0.endpointId == early.id && $0.status == .pending })
            #expect(!deliveries.contains(where: { $0.endpointId == late.id }))
            // An event after the late endpoint was added goes to both, redelivered or not.
            clock.advance(1)
            let after = try await Self.insertEvent(fixture.database, account: account, createdAt: clock.now)
            #expect(try await store.redeliver(app: Self.app, event: after) == 2)
        }
    }
}
