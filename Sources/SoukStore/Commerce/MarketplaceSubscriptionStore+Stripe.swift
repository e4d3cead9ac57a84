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
        /// `invoice.paid`: `amount` charged by `invoice`, paid until `periodEnd`; `renewal` for a cycle's invoice.
        case invoicePaid(stripeSubscription: String, invoice: String, amount: Int, currency: String, periodEnd: Date?, renewal: Bool)
        /// `charge.refunded` of a plan's invoice: `amount` refunded; access ends at once.
        case refunded(invoice: String, amount: Int)
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
        case .invoicePaid(let subscription, _, _, _, _, _), .paymentFailed(let subscription), .updated(let subscription, _, _), .deleted(let subscription):
            query = query.where("stripe_subscription", .equal, subscription)
        case .refunded(let invoice, _):
            // The invoice a refund names was recorded when it was paid.
            guard let charged = try await sql.select().column("subscription_id").from("marketplace_subscription_charges")
                .where("invoice", .equal, invoice).first()?.decode(column: "subscription_id", as: UUID.self) else { return false }
            query = query.where("id", .equal, charged)
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
            case .invoicePaid(_, let invoice, let amount, let currency, let periodEnd, let renewal):
                guard !current.pending else { return false }
                try await Self.recordCharge(current.id, invoice: invoice, kind: renewal ? "renewal" : "purchase", amount: amount,
                                            currency: currency, at: at, on: sql)
                if let periodEnd, periodEnd > current.expiresAt {
                    current.expiresAt = periodEnd
                    if renewal { current.renewals += 1 }
                }
                if current.state == .billingRetry || current.state == .gracePeriod { current.state = .active }
            case .paymentFailed:
                if current.state == .active { current.state = .billingRetry }
            case .refunded(let invoice, let amount):
                try await Self.recordCharge(current.id, invoice: invoice, kind: "refund", amount: -amount, currency: current.price.currency,
                                            at: at, on: sql)
                current.revokedAt = current.revokedAt ?? at
                current.state = .revoked
                current.willRenew = false
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

    /// A plan's charge, once per invoice and kind.
    static func recordCharge(_ subscription: UUID, invoice: String, kind: String, amount: Int, currency: String, at: Date,
                             on sql: any SQLDatabase) async throws {
        try await sql.insert(into: "marketplace_subscription_charges")
            .columns("id", "subscription_id", "invoice", "kind", "amount", "currency", "charged_at")
            .values(SQLBind(UUID()), SQLBind(subscription), SQLBind(invoice), SQLBind(kind), SQLBind(Int64(amount)), SQLBind(currency.uppercased()),
                    SQLBind(at))
            .ignoringConflicts(with: ["invoice", "kind"])
            .run()
    }

    /// One charge as receipts list it.
    public struct Charge: Sendable, Equatable {
        public var subscriptionId: UUID
        public var kind: String
        public var amount: Int
        public var currency: String
        public var date: Date
    }

    /// The charges Stripe made for the account's plans.
    public func charges(account: UUID) async throws -> [Charge] {
        try await purchases.database.sql.raw("""
            SELECT c.subscription_id, c.kind, c.amount, c.currency, c.charged_at FROM marketplace_subscription_charges c
            JOIN marketplace_subscriptions s ON s.id = c.subscription_id WHERE s.account_id = \(bind: account)
            """).all().map { row in
                Charge(subscriptionId: try row.decode(column: "subscription_id", as: UUID.self), kind: try row.decode(column: "kind", as: String.self),
                       amount: Int(try row.decode(column: "amount", as: Int64.self)), currency: try row.decode(column: "currency", as: String.self),
                       date: try row.decode(column: "charged_at", as: Date.self))
            }
    }
}
