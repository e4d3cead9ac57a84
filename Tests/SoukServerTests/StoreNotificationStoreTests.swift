import Foundation
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// The notification queue on both databases: a copy under a seen id is a duplicate, rows are
/// handed out oldest `signed_date` first (a newer one waits while an older one of the same app is
/// queued), one worker at a time, backed off until they fail, and listed for the operator.
@Suite struct StoreNotificationStoreTests {
    static let app = "org.example.reader"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    final class Clock: Sendable {
        private let value = Mutex(StoreNotificationStoreTests.start)
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func note(_ id: String, app: String = app, type: String = "DID_RENEW", signed: TimeInterval) -> ReceivedStoreNotification {
        ReceivedStoreNotification(app: app, store: "apple_store", notificationId: id, type: type, subtype: nil,
                                  environment: "Production", signedDate: start.addingTimeInterval(signed), payload: "{\"signedPayload\":\"\(id)\"}")
    }

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (StoreNotificationStore, Clock) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let clock = Clock()
            try await body(StoreNotificationStore(database: fixture.database, now: { clock.now }), clock)
        }
    }

    @Test(arguments: TestBackend.available)
    func aSecondCopyIsADuplicateAndChangesNothing(backend: TestBackend) async throws {
        try await Self.with(backend) { store, _ in
            guard case .stored(let id) = try await store.receive(Self.note("n-1", signed: 0)) else {
                Issue.record("The first copy was not stored.")
                return
            }
            var copy = Self.note("n-1", type: "EXPIRED", signed: 5)
            copy.payload = "{}"
            #expect(try await store.receive(copy) == .duplicate)
            // The same id in another app is another notification.
            guard case .stored = try await store.receive(Self.note("n-1", app: "org.example.other", signed: 0)) else {
                Issue.record("The same id of another app was refused.")
                return
            }
            let stored = try #require(try await store.notification(id: id))
            #expect(stored.received == Self.note("n-1", signed: 0))
            #expect(stored.status == .queued && stored.attempts == 0)
            #expect(try await store.notifications(app: Self.app).count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func olderSignedDateIsClaimedFirstAndOneWorkerHoldsIt(backend: TestBackend) async throws {
        try await Self.with(backend) { store, clock in
            // The expiry arrives first, the renewal signed before it arrives second.
            _ = try await store.receive(Self.note("expired", type: "EXPIRED", signed: 100))
            clock.advance(1)
            _ = try await store.receive(Self.note("renewed", type: "DID_RENEW", signed: 50))
            async let one = store.claimDue()
            async let two = store.claimDue()
            let claims = try await [one, two].compactMap { $0 }
            // The renewal is held; the expiry waits behind it (same app, older signed date queued).
            #expect(claims.map(\.received.notificationId) == ["renewed"])
            #expect(claims.first?.attempts == 1)
            #expect(try await store.claimDue() == nil)
            try await store.complete(try #require(claims.first).id, status: .processed, summary: "renewed to 2027")
            let next = try #require(try await store.claimDue())
            #expect(next.received.notificationId == "expired")
            try await store.complete(next.id, status: .ignored, summary: "unknown")
            #expect(try await store.claimDue() == nil)
            let listed = try await store.notifications(app: Self.app)
            #expect(Set(listed.map(\.status)) == [.processed, .ignored])
            #expect(listed.first { $0.received.notificationId == "renewed" }?.processedAt == clock.now)
        }
    }

    @Test(arguments: TestBackend.available)
    func aFailedAttemptIsRetriedLaterThenFailsForGood(backend: TestBackend) async throws {
        try await Self.with(backend) { store, clock in
            guard case .stored(let id) = try await store.receive(Self.note("n-1", signed: 0)) else {
                Issue.record("The notification was not stored.")
                return
            }
            for attempt in 1...StoreNotificationStore.maxAttempts {
                let claimed = try #require(try await store.claimDue())
                #expect(claimed.id == id && claimed.attempts == attempt)
                // While held, nobody else gets it.
                #expect(try await store.claimDue() == nil)
                let status = try await store.backOff(id, error: "The store answered 503.", retryAt: clock.now.addingTimeInterval(30))
                #expect(status == (attempt == StoreNotificationStore.maxAttempts ? .failed : .queued))
                #expect(try await store.claimDue() == nil)
                clock.advance(31)
            }
            #expect(try await store.claimDue() == nil)
            let failed = try #require(try await store.notification(id: id))
            #expect(failed.status == .failed && failed.lastError == "The store answered 503.")
            #expect(try await store.requeue(app: Self.app, status: .failed) == 1)
            #expect(try await store.claimDue()?.id == id)
        }
    }

    @Test(arguments: TestBackend.available)
    func anAbandonedLeaseComesBack(backend: TestBackend) async throws {
        try await Self.with(backend) { store, clock in
            _ = try await store.receive(Self.note("n-1", signed: 0))
            let first = try #require(try await store.claimDue())
            clock.advance(StoreNotificationStore.lease + 1)
            let again = try #require(try await store.claimDue())
            #expect(again.id == first.id && again.attempts == 2)
        }
    }
}
