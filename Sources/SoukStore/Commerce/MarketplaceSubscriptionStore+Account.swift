import Foundation
import SQLKit
import SoukCore

/// What a person does to their own membership plans from the account page (issue 14 item 2).
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
}
