import Foundation
import Logging
@testable import SoukApp
@testable import SoukServer
import SoukCore
import SoukIntegrations
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// The queue engine on both databases with a recording handler: notifications are handed over in
/// signed order (a late-arriving older one first), each settles as its outcome says, a failing one
/// is backed off and retried, and a row nobody can handle is never dropped.
@Suite struct StoreNotificationWorkerTests {
    static let app = "org.example.reader"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    final class Clock: Sendable {
        private let value = Mutex(StoreNotificationWorkerTests.start)
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    /// Decides by type: FAIL throws until `failures` ran out, NEW is unknown, ORPHAN unmatched.
    final class Recorder: StoreNotificationHandler {
        let store = "apple_store"
        private let state = Mutex<(seen: [String], failures: Int)>(([], 0))
        init(failures: Int) { state.withLock { $0.failures = failures } }
        var seen: [String] { state.withLock { $0.seen } }

        func handle(_ notification: StoredStoreNotification) async throws -> StoreNotificationOutcome {
            let type = notification.received.type
            let fail = state.withLock { state -> Bool in
                state.seen.append(notification.received.notificationId)
                guard type == "FAIL", state.failures > 0 else { return false }
                state.failures -= 1
                return true
            }
            if fail { throw StoreTestError(description: "The store answered 503 Service Unavailable.") }
            switch type {
            case "NEW": return .ignored("unknown type NEW")
            case "ORPHAN": return .unmatched("no purchase with original transaction 1000")
            default: return .processed("\(type) applied")
            }
        }
    }

    struct StoreTestError: Error, CustomStringConvertible {
        var description: String
    }

    static func note(_ id: String, type: String, store: String = "apple_store", signed: TimeInterval) -> ReceivedStoreNotification {
        ReceivedStoreNotification(app: app, store: store, notificationId: id, type: type, signedDate: start.addingTimeInterval(signed), payload: "{}")
    }

    static func with(_ backend: TestBackend, failures: Int = 0,
                     _ body: @escaping @Sendable (StoreNotificationStore, StoreNotificationWorker, Recorder, Clock) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let clock = Clock()
            let store = StoreNotificationStore(database: fixture.database, now: { clock.now })
            let recorder = Recorder(failures: failures)
            let worker = StoreNotificationWorker(store: store, handlers: [recorder], retry: StoreRetryPolicy(base: .milliseconds(1000), max: .milliseconds(4000)),
                                                 now: { clock.now }, logger: Logger(label: "test"))
            try await body(store, worker, recorder, clock)
        }
    }

    @Test(arguments: TestBackend.available)
    func notificationsAreSettledInSignedOrder(backend: TestBackend) async throws {
        try await Self.with(backend) { store, worker, recorder, _ in
            _ = try await store.receive(Self.note("expired", type: "EXPIRED", signed: 300))
            _ = try await store.receive(Self.note("renewed", type: "DID_RENEW", signed: 200))
            _ = try await store.receive(Self.note("new", type: "NEW", signed: 100))
            _ = try await store.receive(Self.note("orphan", type: "ORPHAN", signed: 400))
            #expect(await worker.processDue() == 4)
            #expect(recorder.seen == ["new", "renewed", "expired", "orphan"])
            let rows = Dictionary(uniqueKeysWithValues: try await store.notifications(app: Self.app).map { ($0.received.notificationId, $0) })
            #expect(rows["new"]?.status == .ignored && rows["new"]?.summary == "unknown type NEW")
            #expect(rows["renewed"]?.status == .processed && rows["expired"]?.status == .processed)
            #expect(rows["orphan"]?.status == .unmatched)
            #expect(await worker.processDue() == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func aFailureIsBackedOffThenRetriedAndTheQueueBehindItWaits(backend: TestBackend) async throws {
        try await Self.with(backend, failures: 2) { store, worker, recorder, clock in
            _ = try await store.receive(Self.note("flaky", type: "FAIL", signed: 100))
            _ = try await store.receive(Self.note("later", type: "DID_RENEW", signed: 200))
            #expect(await worker.processDue() == 0)
            let first = try #require(try await store.notifications(app: Self.app).first { $0.received.notificationId == "flaky" })
            #expect(first.status == .queued && first.lastError == "The store answered 503 Service Unavailable.")
            // First retry: between half and all of the 1 s base.
            #expect(first.nextAttemptAt >= clock.now.addingTimeInterval(0.5) && first.nextAttemptAt <= clock.now.addingTimeInterval(1))
            // The newer notification waits behind the older one that is still queued.
            #expect(recorder.seen == ["flaky"])
            clock.advance(1)
            #expect(await worker.processDue() == 0)
            clock.advance(2)
            #expect(await worker.processDue() == 2)
            #expect(recorder.seen == ["flaky", "flaky", "flaky", "later"])
            #expect(Set(try await store.notifications(app: Self.app).map(\.status)) == [.processed])
        }
    }

    @Test(arguments: TestBackend.available)
    func aNotificationNoHandlerTakesIsKeptQueued(backend: TestBackend) async throws {
        try await Self.with(backend) { store, worker, recorder, _ in
            _ = try await store.receive(Self.note("m-1", type: "subscriptionNotification", store: "google_play", signed: 0))
            #expect(await worker.processDue() == 0)
            let row = try #require(try await store.notifications(app: Self.app).first)
            #expect(row.status == .queued && row.attempts == 1)
            #expect(row.lastError == "No handler is configured for google_play notifications.")
            #expect(recorder.seen.isEmpty)
        }
    }
}
