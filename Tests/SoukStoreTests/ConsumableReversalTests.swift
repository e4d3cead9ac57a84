import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// A store taking back its refund of a consumable (Apple `REFUND_REVERSED`), on both databases:
/// the balance gets back what the refund took, once; replays change nothing; a later refund and
/// a later reversal each move it once more.
@Suite struct ConsumableReversalTests {
    typealias Base = PurchaseStoreTests
    static let app = Base.app
    static let start = Base.start

    static func balance(_ c: Base.Context) async throws -> Int? {
        try await c.store.balances(account: c.alice, app: app).first { $0.productId == "reader.coins.100" }?.balance
    }

    /// The coins of transaction 3000 as the store states them at `signed` (revoked at `revoked`).
    static func coins(_ c: Base.Context, signed: TimeInterval, revoked: TimeInterval? = nil) -> VerifiedPurchase {
        c.verified("reader.coins.100", transaction: "3000", revoked: revoked.map { start.addingTimeInterval($0) },
                   signed: start.addingTimeInterval(signed), quantity: 5)
    }

    static func apply(_ c: Base.Context, _ statement: VerifiedPurchase, reinstates: Bool = false) async throws -> LifecycleApplyOutcome {
        try await c.store.apply(statement, app: app, source: .notification, catalog: c.catalog, reinstates: reinstates)
    }

    @Test(arguments: TestBackend.available)
    func aReversalCreditsWhatTheRefundTookOnceAndReplaysChangeNothing(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            guard case .granted(let payment) = try await c.record(c.intake("reader.coins.100", transaction: "3000"), Self.coins(c, signed: 0)) else {
                Issue.record("not granted"); return
            }
            #expect(try await Self.balance(c) == 5)
            #expect(try await Self.apply(c, Self.coins(c, signed: 10, revoked: 10)) == .applied(paymentId: payment, events: [.refund]))
            #expect(try await Self.balance(c) == 0)

            let reversal = Self.coins(c, signed: 20)
            #expect(try await Self.apply(c, reversal, reinstates: true) == .applied(paymentId: payment, events: []))
            #expect(try await Self.balance(c) == 5)
            #expect(try await c.store.payment(payment)?.revokedAt == nil)
            // The same reversal again (a replayed notification): nothing moves.
            #expect(try await Self.apply(c, reversal, reinstates: true) == .unchanged(paymentId: payment))
            // Another notification saying the same, signed later: nothing is revoked, nothing to give back.
            _ = try await Self.apply(c, Self.coins(c, signed: 25), reinstates: true)
            #expect(try await Self.balance(c) == 5)
            // The refund replayed (older than what Souk holds) takes nothing.
            #expect(try await Self.apply(c, Self.coins(c, signed: 10, revoked: 10)) == .unchanged(paymentId: payment))
            #expect(try await Self.balance(c) == 5)

            // Refunded again, then reversed again: each moves the balance once.
            _ = try await Self.apply(c, Self.coins(c, signed: 30, revoked: 30))
            #expect(try await Self.balance(c) == 0)
            _ = try await Self.apply(c, Self.coins(c, signed: 40), reinstates: true)
            #expect(try await Self.balance(c) == 5)
            #expect(try await c.store.payment(payment)?.revokedAt == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func aReversalGivesBackWhatTheRefundCouldTakeAndANeverCreditedPurchaseItsQuantity(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            _ = try await c.record(c.intake("reader.coins.100", transaction: "3000"), Self.coins(c, signed: 0))
            // Three of five used: the refund can take back only the two left.
            #expect(try await c.store.consume(account: c.alice, app: Self.app, productId: "reader.coins.100", environment: .production,
                                              quantity: 3) == .success(2))
            _ = try await Self.apply(c, Self.coins(c, signed: 10, revoked: 10))
            #expect(try await Self.balance(c) == 0)
            _ = try await Self.apply(c, Self.coins(c, signed: 20), reinstates: true)
            #expect(try await Self.balance(c) == 2)

            // Recorded already refunded (never credited): its reversal credits its quantity, once.
            let refunded = c.verified("reader.coins.100", transaction: "3001", revoked: Self.start, signed: Self.start, quantity: 4)
            _ = try await c.record(c.intake("reader.coins.100", transaction: "3001"), refunded)
            #expect(try await Self.balance(c) == 2)
            let reversed = c.verified("reader.coins.100", transaction: "3001", signed: Self.start.addingTimeInterval(20), quantity: 4)
            _ = try await Self.apply(c, reversed, reinstates: true)
            _ = try await Self.apply(c, reversed, reinstates: true)
            #expect(try await Self.balance(c) == 6)
        }
    }
}
