import Foundation
import SoukCore
import Testing

@Suite("LifecycleTransition")
struct LifecycleTransitionTests {
    private func facts(
        _ tx: String = "t1", product: String = "p.monthly", state: SubscriptionState? = .active,
        willRenew: Bool? = true, revokedAt: Date? = nil
    ) -> PurchaseLifecycleFacts {
        PurchaseLifecycleFacts(
            transactionId: tx, originalTransactionId: "o1", storeProductId: product,
            revokedAt: revokedAt, state: state, willRenew: willRenew)
    }

    @Test("walks the spec §5 table")
    func table() {
        let revoked = Date(timeIntervalSince1970: 1_800_000_000)
        let cases: [(PurchaseLifecycleFacts?, PurchaseLifecycleFacts, [LifecycleEventType])] = [
            (nil, facts(), [.initialPurchase]),
            (facts(), facts(), []),
            (facts(), facts("t2"), [.renewal]),
            (facts(), facts("t2", product: "p.yearly"), [.productChange]),
            (facts(), facts(state: .cancelled, willRenew: false), [.cancellation]),
            (facts(state: .cancelled, willRenew: false), facts(), [.uncancellation]),
            (facts(), facts(state: .billingRetry), [.billingIssue]),
            (facts(state: .billingRetry), facts(state: .gracePeriod), []),
            (facts(), facts(state: .gracePeriod), [.billingIssue]),
            (facts(state: .gracePeriod), facts("t2"), [.renewal]),
            (facts(), facts(state: .expired, willRenew: false), [.expiration]),
            (facts(), facts(state: .revoked, revokedAt: revoked), [.refund]),
            (facts(state: .revoked, revokedAt: revoked), facts(state: .revoked, revokedAt: revoked), []),
        ]
        for (before, after, expected) in cases {
            #expect(LifecycleTransition.events(before: before, after: after) == expected)
        }
    }

    @Test("an unknown renewal state followed by will-not-renew is a cancellation")
    func unknownRenewalState() {
        let cases: [(PurchaseLifecycleFacts, PurchaseLifecycleFacts, [LifecycleEventType])] = [
            // An intake that learned nothing of auto-renew (no App Store Server API answer).
            (facts(state: nil, willRenew: nil), facts(state: .cancelled, willRenew: false), [.cancellation]),
            (facts(state: .active, willRenew: nil), facts(state: .cancelled, willRenew: false), [.cancellation]),
            (facts(state: nil, willRenew: nil), facts(willRenew: true), []),
            // Already known to be cancelled (by its state): nothing new; turned back on: an uncancellation.
            (facts(state: .cancelled, willRenew: nil), facts(state: .cancelled, willRenew: false), []),
            (facts(state: .cancelled, willRenew: nil), facts(), [.uncancellation]),
            // Ended: its own event, not a cancellation.
            (facts(state: nil, willRenew: nil), facts(state: .expired, willRenew: false), [.expiration]),
        ]
        for (before, after, expected) in cases {
            #expect(LifecycleTransition.events(before: before, after: after) == expected)
        }
    }

    @Test("catalog product identity wins over the store SKU")
    func productIdentity() {
        var old = facts()
        old.productId = "premium"
        var new = facts("t2", product: "p.monthly.v2")
        new.productId = "premium"
        #expect(LifecycleTransition.events(before: old, after: new) == [.renewal])
    }
}
