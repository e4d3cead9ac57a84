import Foundation
import Logging
import SoukCore
import SoukIntegrations
@testable import SoukServer
@testable import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// The store side wired into a server (issue 12 items 2, 6, 7), on both databases, with a scripted
/// store: a fault keeps an intake pending, shows in `souk stores status` and the server's pending
/// worker settles it once the store is back; the server's store-action worker acknowledges Google
/// purchases, through failures; reconciliation applies what the store says now; Google RTDN
/// refetches and revokes.
@Suite struct StoreLifecycleServerTests {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app

    /// A store that answers what the test scripts: a verdict, or a fault.
    final class ScriptedStore: StoreVerifier, StoreActionPerformer {
        let store: CommerceStore
        private let answers = Mutex<[Result<StoreVerdict, StoreFault>]>([])
        private let actionFailures = Mutex(0)
        private let performed = Mutex<[StoreAction.Kind]>([])

        init(_ store: CommerceStore) { self.store = store }

        func next(_ answer: Result<StoreVerdict, StoreFault>) { answers.withLock { $0.append(answer) } }
        func failActions(_ count: Int) { actionFailures.withLock { $0 = count } }
        var actions: [StoreAction.Kind] { performed.withLock { $0 } }

        func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
            let answer = answers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let answer else { throw StoreFault(.unavailable, "nothing scripted") }
            return try answer.get()
        }

        func perform(_ action: StoreAction) async throws {
            let fail = actionFailures.withLock { count -> Bool in
                guard count > 0 else { return false }
                count -= 1
                return true
            }
            if fail { throw StoreFault(.credentials, "Google refused the service account (403).") }
            performed.withLock { $0.append(action.kind) }
        }
    }

    static func subscription(_ transaction: String, original: String, expires: Date, state: SubscriptionState = .active,
                             willRenew: Bool = true, acknowledged: Bool? = nil, signed: Date = Date()) -> VerifiedPurchase {
        VerifiedPurchase(store: .googlePlay, transactionId: transaction, originalTransactionId: original, storeProductId: "monthly",
                         type: .autoRenewable, purchaseDate: expires.addingTimeInterval(-30 * 86_400), expiresDate: expires,
                         environment: .production, app: app, signedDate: signed,
                         lifecycle: StoreLifecycle(state: state, willRenew: willRenew), storeReference: "token-\(original)",
                         acknowledged: acknowledged)
    }

    static func googleEvent(_ fixture: Fixture, transaction: String) -> [String: Any] {
        var event = fixture.event("reader.monthly", fixture.transaction("reader.monthly"))
        var data = event["data"] as! [String: Any]
        data["store"] = "google_play"
        data["platform"] = "android"
        data["transaction"] = ["storeProductId": "monthly", "transactionId": transaction, "receipt": "token-\(transaction)"]
        event["data"] = data
        return event
    }

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (Fixture, ScriptedStore) async throws -> Void) async throws {
        let google = ScriptedStore(.googlePlay)
        try await Fixture.with(backend, verifyTimeoutMilliseconds: 2000, verifiers: .init(make: { apple in [apple, google] })) { fixture in
            try await body(fixture, google)
        }
    }

    /// Waits (at most 20 s) for what the server's own workers do.
    static func eventually(_ what: Comment, _ check: () async throws -> Bool) async throws {
        for _ in 0..<200 {
            if try await check() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record(what)
    }

    @Test(arguments: TestBackend.available)
    func aStoreFaultKeepsTheIntakePendingAndTellsTheOperator(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, google in
            google.next(.failure(StoreFault(.credentials, "Google refused the service account (401).")))
            let response = try await fixture.post(Self.googleEvent(fixture, transaction: "GPA.1"), as: fixture.alice)
            #expect(response.status == .accepted)
            let statuses = try await StoreStatusStore(database: fixture.runtime.database).list(app: Self.app)
            #expect(statuses.first?.store == .googlePlay && statuses.first?.isFailing == true && statuses.first?.lastErrorKind == .credentials)
            #expect(!(try await fixture.isEntitled(fixture.alice, to: "reader.monthly")))

            // The store is back: the server's pending worker grants it once, with its initial purchase event.
            google.next(.success(.verified(Self.subscription("GPA.1", original: "GPA.1", expires: Date().addingTimeInterval(86_400)))))
            try await Self.eventually("the pending purchase is granted") { try await fixture.isEntitled(fixture.alice, to: "reader.monthly") }
            #expect(try await StoreStatusStore(database: fixture.runtime.database).list(app: Self.app).first?.isFailing == false)
            let events = try await CommerceEventStore(database: fixture.runtime.database).list(account: fixture.alice.account, app: Self.app, limit: 10)
            #expect(events.map(\.type) == [.initialPurchase] && events.first?.source == .intake)
        }
    }

    @Test(arguments: TestBackend.available)
    func googlePurchasesAreAcknowledgedOnceThroughFailures(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, google in
            google.failActions(1)
            // Bought a minute ago: well inside Google's 3 days.
            google.next(.success(.verified(Self.subscription("GPA.2", original: "GPA.2", expires: Date().addingTimeInterval(30 * 86_400 - 60),
                                                             acknowledged: false))))
            #expect(try await fixture.post(Self.googleEvent(fixture, transaction: "GPA.2"), as: fixture.alice).status == .created)
            let purchases = fixture.runtime.purchases
            let owed = try #require(try await purchases.list(app: Self.app).first)
            #expect(owed.storeAcknowledged != nil)

            // The server's store-action worker: refused once (the operator sees it), then acknowledged, once.
            try await Self.eventually("the acknowledgement is taken") { google.actions == [.acknowledge] }
            let done = try #require(try await purchases.list(app: Self.app).first)
            #expect(done.storeAcknowledged == true && done.storeActionSummary == "acknowledged")
            let status = try #require(try await StoreStatusStore(database: fixture.runtime.database).list(app: Self.app).first)
            #expect(status.lastErrorKind == .credentials && status.lastError == "Google refused the service account (403).")
            try await Task.sleep(for: .milliseconds(1500))
            #expect(google.actions == [.acknowledge])
        }
    }

    @Test(arguments: TestBackend.available)
    func reconciliationAppliesWhatTheStoreSaysNow(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, google in
            let expires = Date().addingTimeInterval(86_400)
            let renewedUntil = Date().addingTimeInterval(30 * 86_400)
            google.next(.success(.verified(Self.subscription("GPA.3", original: "GPA.3", expires: expires))))
            #expect(try await fixture.post(Self.googleEvent(fixture, transaction: "GPA.3"), as: fixture.bob).status == .created)
            let reconciler = Reconciler(purchases: fixture.runtime.purchases, verifiers: StoreVerifiers([google]),
                                        catalogs: fixture.runtime.commerceCatalogs, storeStatus: StoreStatusStore(database: fixture.runtime.database),
                                        retryBase: 0.001, logger: Logger(label: "test"))
            // Nothing is due yet.
            #expect(try await reconciler.run() == Reconciler.Summary())
            // Renewed at the store without a notification: the new order is recorded for Bob.
            google.next(.success(.verified(Self.subscription("GPA.3..0", original: "GPA.3", expires: renewedUntil,
                                                             signed: Date().addingTimeInterval(1)))))
            let renewed = try await reconciler.run(app: Self.app, account: fixture.bob.account, force: true)
            #expect(renewed.checked == 1 && renewed.events == [.renewal])
            // Then cancelled; then the store is down (nothing changes, it is asked again later).
            google.next(.success(.verified(Self.subscription("GPA.3..0", original: "GPA.3", expires: renewedUntil,
                                                             state: .cancelled, willRenew: false, signed: Date().addingTimeInterval(2)))))
            #expect(try await reconciler.run(app: Self.app, force: true).events == [.cancellation])
            let down = try await reconciler.run(app: Self.app, force: true)
            #expect(down.failed == 1 && down.events.isEmpty, "\(down)")
            #expect(try await StoreStatusStore(database: fixture.runtime.database).list(app: Self.app).first?.isFailing == true)
            #expect(try await fixture.isEntitled(fixture.bob, to: "reader.monthly"))
            let trail = try await CommerceEventStore(database: fixture.runtime.database).list(account: fixture.bob.account, app: Self.app, limit: 10)
            #expect(trail.map(\.type) == [.initialPurchase, .renewal, .cancellation])
            #expect(trail.dropFirst().allSatisfy { $0.source == .reconciliation })
        }
    }

    @Test(arguments: TestBackend.available)
    func googleNotificationsRefetchAndRevoke(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, google in
            let expires = Date().addingTimeInterval(86_400)
            google.next(.success(.verified(Self.subscription("GPA.4", original: "GPA.4", expires: expires))))
            #expect(try await fixture.post(Self.googleEvent(fixture, transaction: "GPA.4"), as: fixture.alice).status == .created)
            let handler = GoogleNotificationHandler(verifier: google, purchases: fixture.runtime.purchases, catalogs: fixture.runtime.commerceCatalogs)
            func deliver(_ id: String, _ notification: [String: Any]) async throws -> StoreNotificationOutcome {
                let data = try JSONSerialization.data(withJSONObject: notification).base64EncodedString()
                let body = try JSONSerialization.data(withJSONObject: ["message": ["data": data, "messageId": id], "subscription": "s"])
                let received = ReceivedStoreNotification(app: Self.app, store: "google_play", notificationId: id, type: "x", signedDate: Date(),
                                                         payload: String(decoding: body, as: UTF8.self))
                return try await handler.handle(StoredStoreNotification(id: UUID(), received: received, status: .queued, summary: nil,
                                                                        attempts: 1, nextAttemptAt: Date(), lastError: nil,
                                                                        receivedAt: Date(), processedAt: nil))
            }
            let base: [String: Any] = ["version": "1.0", "packageName": Self.app, "eventTimeMillis": "\(Int64(Date().timeIntervalSince1970 * 1000))"]
            google.next(.success(.verified(Self.subscription("GPA.4..0", original: "GPA.4", expires: expires.addingTimeInterval(30 * 86_400),
                                                             signed: Date().addingTimeInterval(1)))))
            let renewal = try await deliver("m1", base.merging(["subscriptionNotification": [
                "version": "1.0", "notificationType": 2, "purchaseToken": "token-GPA.4", "subscriptionId": "monthly"]]) { $1 })
            #expect(renewal == .processed("SUBSCRIPTION_RENEWED → active (renewal)"))
            #expect(try await deliver("m2", base.merging(["testNotification": ["version": "1.0"]]) { $1 }) == .processed("test notification"))
            let voided = try await deliver("m3", base.merging(["voidedPurchaseNotification": [
                "purchaseToken": "token-GPA.4", "orderId": "GPA.4..0", "productType": 1, "refundType": 1]]) { $1 })
            #expect(voided == .processed("voided → revoked (2)"))
            #expect(!(try await fixture.isEntitled(fixture.alice, to: "reader.monthly")))
            #expect(try await deliver("m4", base.merging(["voidedPurchaseNotification": ["purchaseToken": "token-unknown"]]) { $1 })
                    == .unmatched("voided purchase was never reported to Souk"))
        }
    }
}
