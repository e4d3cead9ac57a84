import Foundation
import SQLKit
import SoukCore

/// What a person does to their own membership plans from the account page, and an operator's
/// refund from the console.
extension MarketplaceSubscriptionStore {
    /// Turns renewal off (`renew: false`, the plan runs to the end of its period) or back on, for
    /// the account's own running plan `id` — never another account's (the id alone selects nothing).
    /// Returns the plan as changed, nil when it is not the account's, pending, or over.
    public func setWillRenew(_ id: UUID, account: UUID, renew: Bool) async throws -> MarketplaceSubscription? {
        let at = purchases.now()
        return try await purchases.write(app: Self.app, key: "msub:\(account.uuidString)") { sql, changes -> MarketplaceSubscription? in
            guard var current = try await Self.subscription(id, on: sql), current.accountId == account, !current.pending,
                  [.active, .gracePeriod, .billingRetry, .cancelled].contains(current.state), current.expiresAt > at else { return nil }
            guard current.willRenew != renew else { return current }
            current.willRenew = renew
            if current.state == .cancelled, renew { current.state = .active }
            try await Self.save(current, at: at, on: sql)
            changes.accounts.insert(account)
            return current
        }
    }

    /// The Stripe Subscription behind plan `id` of `account`, if it was paid through Stripe.
    public func stripeSubscription(_ id: UUID, account: UUID) async throws -> String? {
        try await purchases.database.sql.raw("""
            SELECT stripe_subscription FROM marketplace_subscriptions WHERE id = \(bind: id) AND account_id = \(bind: account)
            """).first()?.decode(column: "stripe_subscription", as: String?.self)
    }

    /// The payment of plan `id`'s latest charge (a Stripe PaymentIntent) and its invoice, when
    /// Stripe billed it; nil for another account's plan or one without a recorded payment.
    public func latestPayment(_ id: UUID, account: UUID) async throws -> (invoice: String, paymentRef: String)? {
        guard let row = try await purchases.database.sql.raw("""
            SELECT c.invoice, c.payment_ref FROM marketplace_subscription_charges c
            JOIN marketplace_subscriptions s ON s.id = c.subscription_id
            WHERE c.subscription_id = \(bind: id) AND s.account_id = \(bind: account) AND c.kind <> 'refund' AND c.payment_ref IS NOT NULL
            ORDER BY c.charged_at DESC LIMIT 1
            """).first() else { return nil }
        return (try row.decode(column: "invoice", as: String.self), try row.decode(column: "payment_ref", as: String.self))
    }

    /// A refund of plan `id` of `account` that no processor bills (the development processor):
    /// access ends at once and the plan never renews, as a full refund at Stripe does. Returns the
    /// plan as changed; nil when it is not the account's, pending, or already over.
    public func revoke(_ id: UUID, account: UUID) async throws -> MarketplaceSubscription? {
        let at = purchases.now()
        return try await purchases.write(app: Self.app, key: "msub:\(account.uuidString)") { sql, changes -> MarketplaceSubscription? in
            guard var current = try await Self.subscription(id, on: sql), current.accountId == account, !current.pending,
                  current.state != .expired, current.state != .revoked else { return nil }
            current.revokedAt = at
            current.state = .revoked
            current.willRenew = false
            try await Self.save(current, at: at, on: sql)
            changes.accounts.insert(account)
            return current
        }
    }
}
