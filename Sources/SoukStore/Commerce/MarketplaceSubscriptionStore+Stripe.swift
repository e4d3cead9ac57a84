import Foundation
import SQLKit
import SoukCore

/// Membership plans through Stripe (issue 13 item 3): a subscription starts `pending` with its
/// Checkout Session, and Stripe's signed events move it — paid, renewed by each invoice, in billing
/// retry when a payment fails, not renewing, ended. Every change is conditional, so a replayed
/// event changes nothing.
extension MarketplaceSubscriptionStore {
    /// Records where a pending subscription is paid (its Checkout Session).
    public func attachCheckout(_ id: UUID, sessionId: String, url: String) async throws {
        try await purchases.database.sql.update("marketplace_subscriptions").set("processor_ref", to: sessionId).set("checkout_url", to: url)
            .where("id", .equal, id).run()
    }

    /// What Stripe said about a subscription.
    public enum StripeChange: Sendable {
        /// `checkout.session.completed`, paid: the subscription starts now for one period.
        case paid(sessionId: String, stripeSubscription: String?)
        /// `invoice.paid`: paid until `periodEnd`; `renewal` for a cycle's invoice.
        case invoicePaid(stripeSubscription: String, periodEnd: Date?, renewal: Bool)
        /// `invoice.payment_failed`: billing retry (no access after the period).
        case paymentFailed(stripeSubscription: String)
        /// `customer.subscription.updated`: whether it renews; ended when Stripe says so.
        case updated(stripeSubscription: String, cancelAtPeriodEnd: Bool, ended: Bool)
        /// `customer.subscription.deleted`.
        case deleted(stripeSubscription: String)
    }

    /// Applies a Stripe event; false when it names no subscription Souk started or changes nothing.
    @discardableResult
    public func apply(_ change: StripeChange) async throws -> Bool {
        let sql = purchases.database.sql
        var query = sql.select().columns(SQLRaw(Self.columns)).from("marketplace_subscriptions")
        switch change {
        case .paid(let session, _):
            query = query.where("processor", .equal, "stripe").where("processor_ref", .equal, session)
        case .invoicePaid(let subscription, _, _), .paymentFailed(let subscription), .updated(let subscription, _, _), .deleted(let subscription):
            query = query.where("stripe_subscription", .equal, subscription)
        }
        guard let found = try await query.first().map(Self.decode) else { return false }
        let at = purchases.now()
        return try await purchases.write(app: Self.app, key: "msub:\(found.accountId.uuidString)") { sql, changes -> Bool in
            guard var current = try await Self.subscription(found.id, on: sql) else { return false }
            let before = current
            switch change {
            case .paid(_, let stripeSubscription):
                guard current.pending else { return false }
                current.pending = false
                current.startedAt = at
                current.expiresAt = at.addingTimeInterval(current.length(from: at))
                if let stripeSubscription {
                    try await sql.update("marketplace_subscriptions").set("stripe_subscription", to: stripeSubscription)
                        .where("id", .equal, current.id).run()
                }
            case .invoicePaid(_, let periodEnd, let renewal):
                guard !current.pending else { return false }
                if let periodEnd, periodEnd > current.expiresAt {
                    current.expiresAt = periodEnd
                    if renewal { current.renewals += 1 }
                }
                if current.state == .billingRetry || current.state == .gracePeriod { current.state = .active }
            case .paymentFailed:
                if current.state == .active { current.state = .billingRetry }
            case .updated(_, let cancelAtPeriodEnd, let ended):
                current.willRenew = !cancelAtPeriodEnd
                if ended, current.state != .revoked {
                    current.state = .expired
                    current.willRenew = false
                    current.expiresAt = min(current.expiresAt, at)
                }
            case .deleted:
                // Stripe ended it now (cancelled at once, or after failed payments): access ends now.
                if current.state != .revoked { current.state = .expired }
                current.willRenew = false
                current.expiresAt = min(current.expiresAt, at)
            }
            guard current != before else { return false }
            try await Self.save(current, at: at, on: sql)
            try await sql.update("marketplace_subscriptions").set("pending", to: current.pending).where("id", .equal, current.id).run()
            changes.accounts.insert(current.accountId)
            return true
        }
    }
}
