import Foundation
import Hummingbird
import SoukApp
import SQLKit
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The delivery worker against a fake receiver (`FakeStoreServer` + `StoreFaults`), on both
/// databases: signed JSON with its headers, back-off after failures, `failed` after the window,
/// one delivery per endpoint with several workers, redelivery under the same event id.
@Suite struct WebhookDeliveryWorkerTests {
    static let app = "org.example.reader"
    static let secret = "whsec_test_0123456789"

    struct Context {
        let database: SoukDatabase
        let store: WebhookStore
        let account: UUID
        let faults: StoreFaults
        let url: String

        /// A minute for the fake receiver by default: beside two CPU-bound processes its 302 or 500 once
        /// took longer than 10 s, and the attempt was recorded as timed out instead.
        func worker(timeout: Duration = .seconds(60), base: Duration = .milliseconds(5)) -> WebhookDeliveryWorker {
            WebhookDeliveryWorker(store: store, retryBase: base, retryMax: max(base, .milliseconds(20)), requestTimeout: timeout,
                                  interval: .milliseconds(10), logger: testLogger())
        }

        func event(type: String = "renewal", environment: String = "Production") async throws -> UUID {
            let id = UUID()
            let at = Date()
            try await database.sql.raw("""
                INSERT INTO commerce_events (id, app, account_id, type, source, environment, occurred_at, created_at, product_id, store,
                transaction_id, original_transaction_id, payment_id, expires_at, dedup_key)
                VALUES (\(bind: id), \(bind: WebhookDeliveryWorkerTests.app), \(bind: account), \(bind: type), 'notification',
                \(bind: environment), \(bind: Date(timeIntervalSince1970: 1_800_000_000)), \(bind: at), 'reader.monthly', 'apple_store',
                '2000000123', '2000000001', \(bind: id), \(bind: Date(timeIntervalSince1970: 1_802_592_000)), \(bind: "\(type)|\(id)"))
                """).run()
            return id
        }

        /// Runs the worker until `done` holds (at most ~`seconds` s).
        func drive(_ worker: WebhookDeliveryWorker, seconds: Int = 5, until done: () async throws -> Bool) async throws {
            for _ in 0..<(seconds * 50) {
                await worker.processDue()
                if try await done() { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("the worker did not get there in time")
        }

        func deliveries() async throws -> [WebhookDelivery] { try await store.deliveries(app: WebhookDeliveryWorkerTests.app) }

        /// The receiver's requests once it has seen at least `count` (at most ~10 s): the worker records an
        /// attempt before its request, which a loaded machine can hand to the receiver late.
        func requests(atLeast count: Int, path: String = "/hook") async throws -> [RecordedStoreRequest] {
            for _ in 0..<500 where faults.requests(matching: path).count < count {
                try await Task.sleep(for: .milliseconds(20))
            }
            return faults.requests(matching: path)
        }
    }

    static func with(_ backend: TestBackend, window: TimeInterval = 3 * 86_400, sandbox: Bool = false,
                     _ body: @escaping @Sendable (Context) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let account = AccountModel(email: "alice@example.com", passwordHash: "x")
            account.sandbox = sandbox
            try await account.create(on: fixture.database.db)
            let faults = StoreFaults()
            try await FakeStoreServer.run(faults: faults, routes: { router in
                router.post("/hook") { _, _ in FakeStoreServer.json(.ok, #"{"received": true}"#) }
                router.post("/moved") { _, _ in Response(status: .found, headers: [.location: "/hook"]) }
            }) { baseURL in
                let store = WebhookStore(database: fixture.database, retryWindow: window)
                try await body(Context(database: fixture.database, store: store, account: account.id!, faults: faults,
                                       url: baseURL + "/hook"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aDeveloperOrganisationsEndpointLearnsTheBuyerOnlyByAccountToken(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            _ = try await DeveloperDirectory(database: c.database).create(name: "Acme", id: "acme")
            try await c.database.sql.raw("""
                INSERT INTO commerce_apps (id, app, allow_sandbox, revision, modified_at, created_at, developer_id)
                VALUES (\(bind: UUID()), \(bind: Self.app), \(bind: false), 1, \(bind: Date()), \(bind: Date()), 'acme')
                """).run()
            _ = try await c.store.add(app: Self.app, url: c.url, secret: Self.secret)
            _ = try await c.event()
            #expect(await c.worker().processDue() == 1)
            let request = try #require(try await c.requests(atLeast: 1).first)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            let token = try await AccountTokenStore(database: c.database).token(account: c.account, app: Self.app)
            #expect(json["account"] as? [String: String] == ["token": token.uuidString.lowercased()])
            #expect(!String(decoding: request.body, as: UTF8.self).contains("alice@example.com"))
            #expect(!String(decoding: request.body, as: UTF8.self).contains(c.account.uuidString.lowercased()))
        }
    }

    @Test(arguments: TestBackend.available)
    func aSandboxEventIsPostedAsSignedJSONWithItsHeaders(backend: TestBackend) async throws {
        try await Self.with(backend, sandbox: true) { c in
            _ = try await c.store.add(app: Self.app, url: c.url, secret: Self.secret)
            let event = try await c.event(type: "renewal", environment: "Sandbox")
            #expect(await c.worker().processDue() == 1)
            let request = try #require(c.faults.requests(matching: "/hook").first)
            #expect(request.method == "POST")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["user-agent"] == "Souk-Webhooks/1")
            #expect(request.headers["souk-event-id"] == event.uuidString.lowercased())
            let signature = try #require(request.headers["souk-signature"])
            try SoukWebhookSignature.verify(header: signature, body: request.body, secret: Self.secret, now: request.receivedAt)
            var tampered = request.body
            tampered[tampered.count - 2] = UInt8(ascii: " ")
            #expect(throws: SoukWebhookSignature.Failure.mismatch) {
                try SoukWebhookSignature.verify(header: signature, body: tampered, secret: Self.secret, now: request.receivedAt)
            }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            #expect(json["id"] as? String == event.uuidString.lowercased())
            #expect(json["type"] as? String == "renewal" && json["environment"] as? String == "Sandbox" && json["app"] as? String == Self.app)
            #expect(json["occurredAt"] as? String == RFC3339.format(Date(timeIntervalSince1970: 1_800_000_000)))
            let account = try #require(json["account"] as? [String: Any])
            #expect(account["id"] as? String == c.account.uuidString.lowercased() && account["email"] as? String == "alice@example.com")
            let data = try #require(json["data"] as? [String: Any])
            #expect(data["productId"] as? String == "reader.monthly" && data["store"] as? String == "apple_store")
            #expect(data["transactionId"] as? String == "2000000123" && data["originalTransactionId"] as? String == "2000000001")
            #expect(data["paymentId"] as? String == event.uuidString.lowercased())
            #expect(data["expiresAt"] as? String == RFC3339.format(Date(timeIntervalSince1970: 1_802_592_000)))
            let delivery = try #require(try await c.deliveries().first)
            #expect(delivery.status == .delivered && delivery.attempts == 1 && delivery.lastStatus == 200 && delivery.environment == "Sandbox")
            // Delivered once: another pass posts nothing.
            #expect(await c.worker().processDue() == 0)
            #expect(c.faults.requests(matching: "/hook").count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func failuresAndTimeoutsAreRetriedWithBackOffUntilTheReceiverAnswers(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            _ = try await c.store.add(app: Self.app, url: c.url, secret: Self.secret)
            let event = try await c.event()
            c.faults.failNext(2, status: 503)
            c.faults.delayNext(2, by: .zero)
            // Slower than the worker waits by half a second, so only a machine stalled for a second times out an
            // attempt meant to answer at once.
            c.faults.delayNext(1, by: .milliseconds(1500))
            let worker = c.worker(timeout: .seconds(1))
            try await c.drive(worker, seconds: 15) { try await c.deliveries().first?.status == .delivered }
            // What the worker recorded is the reference; the receiver's log can lag it: an attempt given up
            // on (timed out) may reach the receiver after the worker has moved on.
            let delivery = try #require(try await c.deliveries().first)
            let requests = try await c.requests(atLeast: delivery.attempts)
            // 503, 503, timed out, 200 — every attempt the same event id, each signed anew. Under load an
            // attempt meant to answer at once may time out too: more attempts, never fewer, each counted.
            #expect(requests.count >= 4)
            #expect(Set(requests.compactMap { $0.headers["souk-event-id"] }) == [event.uuidString.lowercased()])
            for request in requests {
                try SoukWebhookSignature.verify(header: try #require(request.headers["souk-signature"]), body: request.body, secret: Self.secret,
                                                now: request.receivedAt)
            }
            #expect(delivery.attempts == requests.count && delivery.lastStatus == 200)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDeadReceiverEndsFailedAfterTheWindowAndRedeliveryKeepsTheEventId(backend: TestBackend) async throws {
        // A 10 s window: the event's time is taken before its INSERT, and the queueing comes after both; a loaded
        // machine's pool can delay each by seconds (5 s was too short beside two CPU-bound processes).
        try await Self.with(backend, window: 10) { c in
            // How many attempts fit in the window depends on the machine's load; that the delivery ends `failed` and is
            // never tried again is what counts here (retries are counted in the test above).
            _ = try await c.store.add(app: Self.app, url: c.url, secret: Self.secret)
            let event = try await c.event(type: "expiration")
            // Queued at once, before the worker runs.
            #expect(try await c.store.enqueue() == 1)
            c.faults.down(status: 500)
            let worker = c.worker()
            try await c.drive(worker, seconds: 30) { try await c.deliveries().first?.status == .failed }
            let failed = try #require(try await c.deliveries().first)
            #expect(failed.attempts >= 1 && failed.lastStatus == 500 && failed.lastError == "the receiver answered 500")
            let attempts = c.faults.requests(matching: "/hook").count
            await worker.processDue()
            #expect(c.faults.requests(matching: "/hook").count == attempts)

            c.faults.recover()
            #expect(try await c.store.redeliver(app: Self.app, event: event) == 1)
            try await c.drive(worker) { try await c.deliveries().first?.status == .delivered }
            let last = try #require(c.faults.requests(matching: "/hook").last)
            #expect(last.headers["souk-event-id"] == event.uuidString.lowercased())
            let json = try #require(try JSONSerialization.jsonObject(with: Data(last.body)) as? [String: Any])
            #expect(json["id"] as? String == event.uuidString.lowercased() && json["type"] as? String == "expiration")
            #expect(try await c.deliveries().count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func severalWorkersDeliverEachEventOncePerEndpoint(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            _ = try await c.store.add(app: Self.app, url: c.url + "?endpoint=a", secret: Self.secret)
            _ = try await c.store.add(app: Self.app, url: c.url + "?endpoint=b", secret: "another_secret_0123")
            var events: [UUID] = []
            for type in ["initial_purchase", "cancellation", "refund", "product_change", "transfer"] {
                events.append(try await c.event(type: type))
            }
            let workers = (0..<3).map { _ in c.worker() }
            await withTaskGroup(of: Void.self) { group in
                for worker in workers { group.addTask { await worker.processDue() } }
            }
            let requests = c.faults.requests(matching: "/hook")
            let seen = requests.map { "\($0.query)|\($0.headers["souk-event-id"] ?? "")" }
            #expect(seen.count == 10 && Set(seen).count == 10)
            #expect(Set(requests.compactMap { $0.headers["souk-event-id"] }) == Set(events.map { $0.uuidString.lowercased() }))
            #expect(try await c.deliveries().allSatisfy { $0.status == .delivered && $0.attempts == 1 })
        }
    }

    @Test(arguments: TestBackend.available)
    func aRedirectIsAFailedAttemptAndIsNotFollowed(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            _ = try await c.store.add(app: Self.app, url: c.url.replacingOccurrences(of: "/hook", with: "/moved"), secret: Self.secret)
            _ = try await c.event(type: "billing_issue")
            #expect(await c.worker(base: .seconds(30)).processDue() == 0)
            #expect(c.faults.requests(matching: "/moved").count == 1 && c.faults.requests(matching: "/hook").isEmpty)
            let delivery = try #require(try await c.deliveries().first)
            #expect(delivery.status == .pending && delivery.lastStatus == 302 && delivery.lastError == "the receiver answered 302")
        }
    }

    @Test func backOffDoublesFromTheBaseUpToTheMaximumWithJitter() {
        let base = Duration.seconds(60), max = Duration.seconds(3600)
        #expect(WebhookDeliveryWorker.delay(afterAttempts: 1, base: base, max: max, jitter: 1) == .seconds(60))
        #expect(WebhookDeliveryWorker.delay(afterAttempts: 3, base: base, max: max, jitter: 1) == .seconds(240))
        #expect(WebhookDeliveryWorker.delay(afterAttempts: 3, base: base, max: max, jitter: 0) == .seconds(120))
        #expect(WebhookDeliveryWorker.delay(afterAttempts: 12, base: base, max: max, jitter: 1) == .seconds(3600))
    }
}
