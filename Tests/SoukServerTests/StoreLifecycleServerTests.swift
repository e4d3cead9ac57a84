import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import SoukApp
import SoukCore
import SoukIntegrations
@testable import SoukServer
@testable import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// The store side wired into a server (7), on both databases, with a scripted
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
            try await eventually("the pending purchase is granted") { try await fixture.isEntitled(fixture.alice, to: "reader.monthly") }
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
            // The store records the call before the worker writes its answer down: wait for both.
            try await eventually("the acknowledgement is taken and recorded") {
                let recorded = try await purchases.list(app: Self.app).first?.storeAcknowledged == true
                return recorded && google.actions == [.acknowledge]
            }
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

    @Test(arguments: TestBackend.available)
    func anAccountsAppStoreHistoryIsReconciled(backend: TestBackend) async throws {
        let chain = try AppleTestChain.make()
        try await Fixture.withAppStoreServerAPI(chain: chain, pageSize: 1) { fake, apple in
            try await Fixture.with(backend, verifiers: .init(make: { _ in [apple] })) { fixture in
                // A legacy intake: no signed transaction, looked up by id with the In-App Purchase key.
                let first = fixture.transaction("reader.monthly", id: "2000000000007001", purchased: Date() - 40 * 86_400,
                                                expires: Date() - 10 * 86_400)
                fake.add(first)
                let response = try await fixture.post(fixture.event("reader.monthly", first, receipt: ""), as: fixture.alice)
                #expect(response.status == .created)
                #expect(!(try await fixture.isEntitled(fixture.alice, to: "reader.monthly")))
                // Renewed at Apple; Souk heard nothing. The account's history brings it in.
                let renewal = fixture.transaction("reader.monthly", id: "2000000000007002", original: "2000000000007001",
                                                  purchased: Date() - 10 * 86_400, expires: Date() + 20 * 86_400)
                fake.add(renewal)
                let reconciler = Reconciler(purchases: fixture.runtime.purchases, verifiers: StoreVerifiers([apple]),
                                            catalogs: fixture.runtime.commerceCatalogs, storeStatus: nil, retryBase: 0.001,
                                            logger: Logger(label: "test"))
                let renewed = try await reconciler.reconcileAppleHistory(account: fixture.alice.account)
                #expect(renewed.summary.events == [.renewal] && renewed.skipped.isEmpty)
                #expect(try await fixture.isEntitled(fixture.alice, to: "reader.monthly"))
                // Refunded at Apple: the refund history revokes it.
                var refunded = renewal
                refunded.revocationDate = Date() - 60
                refunded.revocationReason = 0
                fake.update(refunded)
                let refund = try await reconciler.reconcileAppleHistory(account: fixture.alice.account)
                #expect(refund.summary.events == [.refund])
                #expect(!(try await fixture.isEntitled(fixture.alice, to: "reader.monthly")))
                // Nothing new: nothing recorded twice.
                #expect(try await reconciler.reconcileAppleHistory(account: fixture.alice.account).summary.events.isEmpty)
                #expect(try await reconciler.reconcileAppleHistory(account: fixture.bob.account).summary == Reconciler.Summary())
            }
        }
    }

    /// SUBSCRIBED → DID_RENEW → DID_FAIL_TO_RENEW/GRACE_PERIOD → EXPIRED, then a new subscription
    /// REFUNDed and one REVOKEd, through the route and the server's queue, with replays and one
    /// notification delivered before an older one: the entitlement answer follows each step.
    @Test(arguments: TestBackend.available)
    func appleNotificationSequencesMoveTheEntitlement(backend: TestBackend) async throws {
        var catalog = CommerceCatalogSamples.reader
        catalog.stores = CommerceStoreSettings(apple: AppleStoreSettings(bundleId: Self.app, appAppleId: 1_234_567_890))
        try await Fixture.with(backend, catalog: catalog) { fixture in
            let day: TimeInterval = 86_400
            let start = Date() - 35 * day
            func send(_ type: String, _ subtype: String? = nil, _ transaction: AppleTestTransaction, status: Int? = nil,
                      renewal: AppleTestRenewalInfo? = nil, signed: Date = Date(), uuid: String = UUID().uuidString.lowercased()) async throws {
                let note = AppleTestNotification(type: type, subtype: subtype, notificationUUID: uuid, data: .init(
                    environment: "Production", appAppleId: 1_234_567_890, bundleId: Self.app,
                    signedTransactionInfo: fixture.chain.signTransaction(transaction),
                    signedRenewalInfo: renewal.map { fixture.chain.sign($0) }, status: status), signedDate: signed)
                let response = try await fixture.client.execute(uri: "/commerce/\(Self.app)/apple/notifications", method: .post,
                                                                headers: [.contentType: "application/json"],
                                                                body: ByteBuffer(data: AppleTestNotification.body(fixture.chain.sign(note))))
                #expect(response.status == .ok, "\(type): \(String(buffer: response.body))")
            }
            func entitled() async throws -> Bool { try await fixture.isEntitled(fixture.alice, to: "reader.monthly") }
            func settled(_ count: Int) async throws {
                try await eventually("\(count) notifications processed") {
                    try await StoreNotificationStore(database: fixture.runtime.database).notifications(app: Self.app)
                        .filter { $0.status != .queued }.count >= count
                }
            }
            let first = fixture.transaction("reader.monthly", id: "2000000000008001", purchased: start, expires: start + 30 * day)
            #expect(try await fixture.buy("reader.monthly", as: fixture.alice, first).status == .created)
            try await send("SUBSCRIBED", "INITIAL_BUY", first, status: 1)
            let renewal = fixture.transaction("reader.monthly", id: "2000000000008002", original: "2000000000008001",
                                              purchased: start + 30 * day, expires: Date() + day)
            try await send("DID_RENEW", nil, renewal, status: 1)
            try await send("DID_RENEW", nil, renewal, status: 1)
            try await settled(3)
            #expect(try await entitled())
            // Billing trouble after the renewal's expiry: grace keeps access, its end takes it away.
            let lapsed = fixture.transaction("reader.monthly", id: "2000000000008002", original: "2000000000008001",
                                             purchased: start + 30 * day, expires: Date() - 60)
            try await send("DID_FAIL_TO_RENEW", "GRACE_PERIOD", lapsed, status: 4,
                           renewal: AppleTestRenewalInfo(originalTransactionId: "2000000000008001", productId: lapsed.productId,
                                                         gracePeriodExpiresDate: Date() + 3 * day))
            try await settled(4)
            #expect(try await entitled())
            let expiredAt = Date()
            try await send("EXPIRED", "BILLING_RETRY", lapsed, status: 2, signed: expiredAt + 1)
            // An older notification arriving late changes nothing.
            try await send("DID_FAIL_TO_RENEW", "GRACE_PERIOD", lapsed, status: 4,
                           renewal: AppleTestRenewalInfo(originalTransactionId: "2000000000008001", productId: lapsed.productId,
                                                         gracePeriodExpiresDate: Date() + 3 * day), signed: expiredAt - 10)
            try await settled(6)
            #expect(!(try await entitled()))
            let events = try await CommerceEventStore(database: fixture.runtime.database).list(account: fixture.alice.account, app: Self.app, limit: 20)
            #expect(events.map(\.type) == [.initialPurchase, .renewal, .billingIssue, .expiration], "\(events.map(\.type))")

            // Refunded, and revoked (family sharing ended): access ends at once.
            for (index, type) in ["REFUND", "REVOKE"].enumerated() {
                let person = index == 0 ? fixture.bob : fixture.alice
                let bought = fixture.transaction("reader.yearly", id: "200000000000810\(index)", purchased: Date() - day,
                                                 expires: Date() + 300 * day)
                #expect(try await fixture.buy("reader.yearly", as: person, bought).status == .created)
                #expect(try await fixture.isEntitled(person, to: "reader.yearly"))
                var ended = bought
                ended.revocationDate = Date() - 5
                ended.revocationReason = 1
                try await send(type, nil, ended, status: 5)
                try await settled(7 + index)
                #expect(!(try await fixture.isEntitled(person, to: "reader.yearly")), "\(type)")
            }
            // A tampered payload is refused and changes nothing.
            let response = try await fixture.client.execute(uri: "/commerce/\(Self.app)/apple/notifications", method: .post,
                                                            headers: [.contentType: "application/json"],
                                                            body: ByteBuffer(string: #"{"signedPayload": "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"}"#))
            #expect((400..<500).contains(response.status.code))
        }
    }
}
