import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// One lifecycle for every store, on both databases: intake records lifecycle
/// columns and events, `apply` follows a store's later statements (renewals, cancellations,
/// refunds) in any order, each event once, and re-checks are claimed by one process at a time.
@Suite struct PurchaseLifecycleTests {
    typealias Base = PurchaseStoreTests
    static let app = Base.app
    static let start = Base.start
    static let month: TimeInterval = 30 * 86_400

    static func events(_ c: Base.Context, _ account: UUID? = nil) async throws -> [LifecycleEventType] {
        try await CommerceEventStore(database: c.fixture.database).list(account: account ?? c.alice, app: app, limit: 100).map(\.type)
    }

    static func subscription(_ c: Base.Context, transaction: String, original: String = "500", purchased: Date, signed: Date,
                             state: SubscriptionState = .active, willRenew: Bool = true, revoked: Date? = nil,
                             sku: String = "reader.monthly") -> VerifiedPurchase {
        var verified = c.verified(sku, transaction: transaction, original: original, purchased: purchased,
                                  expires: purchased.addingTimeInterval(month), revoked: revoked, signed: signed)
        verified.lifecycle = StoreLifecycle(state: state, willRenew: willRenew, periodType: .normal)
        return verified
    }

    @Test(arguments: TestBackend.available)
    func aSubscriptionsLifeIsFollowedAndEachEventRecordedOnce(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            let first = Self.subscription(c, transaction: "500", purchased: Self.start, signed: Self.start)
            guard case .granted(let payment) = try await c.record(c.intake("reader.monthly", transaction: "500"), first) else {
                Issue.record("not granted"); return
            }
            let recorded = try #require(try await c.store.payment(payment))
            #expect(recorded.subscriptionState == .active && recorded.willRenew == true && recorded.periodType == .normal)
            #expect(recorded.nextCheckAt == first.expiresDate!.addingTimeInterval(RecheckSchedule.settle))
            // The same statement again (a retried intake, a replayed notification) changes nothing.
            #expect(try await c.store.apply(first, app: Self.app, source: .notification, catalog: c.catalog) == .unchanged(paymentId: payment))

            // Cancelled, then changed their mind; an older statement arriving late is ignored.
            let cancelled = Self.subscription(c, transaction: "500", purchased: Self.start, signed: Self.start.addingTimeInterval(100),
                                              state: .cancelled, willRenew: false)
            #expect(try await c.store.apply(cancelled, app: Self.app, source: .notification, catalog: c.catalog)
                    == .applied(paymentId: payment, events: [.cancellation]))
            #expect(try await c.store.apply(first, app: Self.app, source: .notification, catalog: c.catalog) == .unchanged(paymentId: payment))
            let resumed = Self.subscription(c, transaction: "500", purchased: Self.start, signed: Self.start.addingTimeInterval(200))
            #expect(try await c.store.apply(resumed, app: Self.app, source: .reconciliation, catalog: c.catalog)
                    == .applied(paymentId: payment, events: [.uncancellation]))

            // Renewed: a new transaction of the same original, recorded for its owner; the new period carries the re-checks.
            let renewed = Self.subscription(c, transaction: "501", purchased: first.expiresDate!, signed: first.expiresDate!)
            guard case .applied(let renewal, let renewalEvents) = try await c.store.apply(renewed, app: Self.app, source: .notification,
                                                                                           catalog: c.catalog) else {
                Issue.record("renewal not applied"); return
            }
            #expect(renewalEvents == [.renewal] && renewal != payment)
            #expect(try await c.store.payment(renewal)?.accountId == c.alice)
            #expect(try await c.store.payment(payment)?.nextCheckAt == nil)
            #expect(try await c.store.apply(renewed, app: Self.app, source: .reconciliation, catalog: c.catalog) == .unchanged(paymentId: renewal))

            // Billing trouble in grace, then expired; then refunded.
            var grace = Self.subscription(c, transaction: "501", purchased: first.expiresDate!, signed: first.expiresDate!.addingTimeInterval(10),
                                          state: .gracePeriod)
            grace.lifecycle?.graceExpiresDate = renewed.expiresDate!.addingTimeInterval(16 * 86_400)
            #expect(try await c.store.apply(grace, app: Self.app, source: .notification, catalog: c.catalog)
                    == .applied(paymentId: renewal, events: [.billingIssue]))
            #expect(try await c.store.payment(renewal)?.graceExpiresDate == grace.lifecycle?.graceExpiresDate)
            let expired = Self.subscription(c, transaction: "501", purchased: first.expiresDate!, signed: first.expiresDate!.addingTimeInterval(20),
                                            state: .expired, willRenew: false)
            #expect(try await c.store.apply(expired, app: Self.app, source: .notification, catalog: c.catalog)
                    == .applied(paymentId: renewal, events: [.expiration]))
            #expect(try await c.store.payment(renewal)?.nextCheckAt == nil)
            let refunded = Self.subscription(c, transaction: "501", purchased: first.expiresDate!, signed: first.expiresDate!.addingTimeInterval(30),
                                             state: .revoked, willRenew: false, revoked: first.expiresDate!.addingTimeInterval(25))
            #expect(try await c.store.apply(refunded, app: Self.app, source: .notification, catalog: c.catalog)
                    == .applied(paymentId: renewal, events: [.refund]))
            // Listed by when they happened (an expiration never later than the store said it).
            #expect(try await Self.events(c) == [.initialPurchase, .cancellation, .uncancellation, .renewal, .billingIssue, .expiration,
                                                 .refund])
            // A statement about a purchase nobody reported is not recorded.
            #expect(try await c.store.apply(Self.subscription(c, transaction: "900", original: "900", purchased: Self.start, signed: Self.start),
                                            app: Self.app, source: .notification, catalog: c.catalog) == .unknownPurchase)
        }
    }

    @Test(arguments: TestBackend.available)
    func aSettledPendingPurchaseAndATransferEachSayItOnce(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            let intake = c.intake("reader.book.1", transaction: "700", event: "e1")
            guard case .pending(let pending) = try await c.store.recordPending(intake) else { Issue.record("not pending"); return }
            let verified = c.verified("reader.book.1", transaction: "700")
            #expect(try await c.record(intake, verified, pending: pending) == .granted(paymentId: pending))
            #expect(try await c.record(intake, verified) == .granted(paymentId: pending))
            #expect(try await Self.events(c) == [.initialPurchase])
            // Bob restores it under the transfer policy: a transfer event for Bob.
            #expect(try await c.record(c.intake("reader.book.1", transaction: "700", account: c.bob), verified) == .granted(paymentId: pending))
            #expect(try await Self.events(c, c.bob) == [.transfer])
            // The operator's refund.
            _ = try await c.store.revoke(pending)
            _ = try await c.store.revoke(pending)
            #expect(try await Self.events(c, c.bob) == [.transfer, .refund])
        }
    }

    @Test(arguments: TestBackend.available)
    func aStoreRefundByReferenceAndAConsumptionAreEvents(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            var coins = c.verified("reader.coins.100", transaction: "GPA.1", quantity: 2)
            coins.storeReference = "token-1"
            _ = try await c.record(c.intake("reader.coins.100", transaction: "GPA.1"), coins)
            #expect(try await c.store.consume(account: c.alice, app: Self.app, productId: "reader.coins.100", environment: .production)
                    == .success(1))
            let revoked = try await c.store.revokeAtStore(app: Self.app, store: .appleStore, storeReference: "token-1", transactionId: nil,
                                                          at: Self.start.addingTimeInterval(50), reason: "voided", source: .notification)
            #expect(revoked.count == 1)
            #expect(try await c.store.revokeAtStore(app: Self.app, store: .appleStore, storeReference: "token-1", transactionId: nil,
                                                    at: Self.start.addingTimeInterval(50), reason: "voided", source: .notification).isEmpty)
            #expect(try await Self.events(c) == [.initialPurchase, .refund, .consumption])
            #expect(try await c.store.balances(account: c.alice, app: Self.app).first?.balance == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRenewalThatMovesTheExpiryOfOneReceiptIsARenewal(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            let first = Self.subscription(c, transaction: "amzn-1", original: "amzn-1", purchased: Self.start, signed: Self.start)
            _ = try await c.record(c.intake("reader.monthly", transaction: "amzn-1"), first)
            var later = first
            later.expiresDate = first.expiresDate!.addingTimeInterval(Self.month)
            later.signedDate = first.expiresDate!
            guard case .applied(_, let events) = try await c.store.apply(later, app: Self.app, source: .reconciliation, catalog: c.catalog) else {
                Issue.record("not applied"); return
            }
            #expect(events == [.renewal])
        }
    }

    @Test(arguments: TestBackend.available)
    func aDueRecheckIsClaimedByOneProcess(backend: TestBackend) async throws {
        let clock = TestClock(Self.start.addingTimeInterval(60))
        try await Base.with(backend, now: { clock.now }) { c in
            let first = Self.subscription(c, transaction: "600", original: "600", purchased: Self.start, signed: Self.start)
            guard case .granted(let payment) = try await c.record(c.intake("reader.monthly", transaction: "600"), first) else {
                Issue.record("not granted"); return
            }
            #expect(try await c.store.claimRechecks(limit: 10).isEmpty)
            clock.advance(Self.month + 120)
            let store = c.store
            let claims = try await withThrowingTaskGroup(of: [StoredPurchase].self) { group in
                for _ in 0..<4 { group.addTask { try await store.claimRechecks(limit: 10) } }
                return try await group.reduce(into: [StoredPurchase]()) { $0 += $1 }
            }
            #expect(claims.map(\.paymentId) == [payment])
            try await c.store.postponeRecheck(claims[0], base: 1)
            #expect(try await c.store.claimRechecks(limit: 10).isEmpty)
            clock.advance(2)
            #expect(try await c.store.claimRechecks(limit: 10).map(\.paymentId) == [payment])
            try await c.store.finishRecheck(payment, next: nil)
            clock.advance(86_400)
            #expect(try await c.store.claimRechecks(limit: 10).isEmpty)
            #expect(try await c.store.claimRechecks(limit: 10, app: Self.app, account: c.alice, force: true).map(\.paymentId) == [payment])
            #expect(try await c.store.claimRechecks(limit: 10, app: Self.app, account: c.bob, force: true).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func periodsArrivingOutOfOrderSayOnlyThatTheyHappened(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            // The renewal is reported first (a restore of the newest transaction), then the original, then a missed middle period.
            let third = Self.subscription(c, transaction: "803", original: "801", purchased: Self.start + 2 * Self.month, signed: Self.start,
                                          state: .cancelled, willRenew: false)
            _ = try await c.record(c.intake("reader.monthly", transaction: "803"), third)
            let first = Self.subscription(c, transaction: "801", original: "801", purchased: Self.start, signed: Self.start, state: .expired)
            _ = try await c.record(c.intake("reader.monthly", transaction: "801"), first)
            let second = Self.subscription(c, transaction: "802", original: "801", purchased: Self.start + Self.month, signed: Self.start,
                                           state: .expired, willRenew: true)
            guard case .applied(_, let events) = try await c.store.apply(second, app: Self.app, source: .reconciliation, catalog: c.catalog) else {
                Issue.record("the missed period was not recorded"); return
            }
            #expect(events == [.renewal])
            // Souk first heard of the subscription with 803 (its initial purchase, once); the original adds nothing; 802 is a renewal.
            let all = try await Self.events(c)
            #expect(all.count == 2 && Set(all) == [.initialPurchase, .renewal])
            // The newest period still carries the subscription: an older one did not cut it short.
            let newest = try await c.store.purchases(app: Self.app, store: .appleStore, originalTransactionId: "801").first
            #expect(newest?.transactionId == "803" && newest?.expiresDate == third.expiresDate)
        }
    }
}
