import Foundation
import SQLKit
import SoukCore

/// Membership plans through Stripe: a subscription starts `pending` with its
/// Checkout Session, and Stripe's signed events move it — paid, renewed by each invoice, in billing
/// retry when a payment fails, not renewing, ended — or, never paid, removed when its Checkout
/// Session fails or expires. Every change is conditional, so a replayed event changes nothing.
extension MarketplaceSubscriptionStore {
    /// Records where a pending subscription is paid (its Checkout Session).
    public func attachCheckout(_ id: UUID, sessionId: String, url: String) async throws {
        try await purchases.database.sql.update("marketplace_subscriptions").set("processor_ref", to: sessionId).set("checkout_url", to: url)
            .where("id", .equal, id).run()
    }

    /// What Stripe said about a subscription.
    public enum StripeChange: Sendable {
        /// `checkout.session.completed` paid, or `checkout.session.async_payment_succeeded`: the
        /// subscription starts now for one period.
        case paid(sessionId: String, stripeSubscription: String?)
        /// `checkout.session.async_payment_failed` or `checkout.session.expired`: the pending
        /// subscription (never started, it opened nothing) is removed, so the next checkout of the
        /// plan makes a new Checkout Session. A started one is never touched.
        case checkoutClosed(sessionId: String)
        /// `invoice.paid`: `amount` charged by `invoice` (through `paymentIntent`), paid until
        /// `periodEnd`; `renewal` for a cycle's invoice. Stripe does not order its events: the first
        /// invoice may come before `checkout.session.completed`, when Souk does not know the Stripe
        /// subscription yet, so `soukSubscription` (the `souk_subscription` metadata Souk gave the
        /// subscription, which its invoices carry) finds it, and a paid invoice starts a pending one.
        case invoicePaid(stripeSubscription: String, soukSubscription: UUID?, invoice: String, paymentIntent: String?, amount: Int,
                         currency: String, periodEnd: Date?, renewal: Bool)
        /// `charge.refunded` of a plan's invoice, named by the charge (`invoice`, before basil) or
        /// found by the PaymentIntent it was paid with: `amount` refunded so far (cumulative). `full`:
        /// the whole charge, and access ends at once; a partial refund is only recorded (the plan runs on).
        case refunded(invoice: String?, paymentIntent: String?, amount: Int, full: Bool)
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
        case .paid(let session, _), .checkoutClosed(let session):
            query = query.where("processor", .equal, "stripe").where("processor_ref", .equal, session)
        case .invoicePaid(let subscription, let soukSubscription, _, _, _, _, _, _):
            query = query.where("processor", .equal, "stripe").where { group in
                var group = group.where("stripe_subscription", .equal, subscription)
                if let soukSubscription { group = group.orWhere("id", .equal, soukSubscription) }
                return group
            }
        case .paymentFailed(let subscription), .updated(let subscription, _, _), .deleted(let subscription):
            query = query.where("stripe_subscription", .equal, subscription)
        case .refunded(let invoice, let paymentIntent, _, _):
            // The invoice a refund names (or the payment that paid it) was recorded when it was paid.
            guard invoice != nil || paymentIntent != nil else { return false }
            let charged = try await sql.select().column("subscription_id").from("marketplace_subscription_charges").where { group in
                var group = group
                if let invoice { group = group.orWhere("invoice", .equal, invoice) }
                if let paymentIntent { group = group.orWhere("payment_ref", .equal, paymentIntent) }
                return group
            }.first()
            guard let charged else { return false }
            query = query.where("id", .equal, try charged.decode(column: "subscription_id", as: UUID.self))
        }
        guard let found = try await query.first().map(Self.decode) else { return false }
        let at = purchases.now()
        return try await purchases.write(app: Self.app, key: "msub:\(found.accountId.uuidString)") { sql, changes -> Bool in
            guard var current = try await Self.subscription(found.id, on: sql) else { return false }
            let before = current
            var recorded = false
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
            case .checkoutClosed:
                let removed = try await sql.raw("""
                    DELETE FROM marketplace_subscriptions WHERE id = \(bind: current.id) AND pending = \(bind: true) RETURNING id
                    """).first() != nil
                if removed { changes.accounts.insert(current.accountId) }
                return removed
            case .invoicePaid(let stripeSubscription, _, let invoice, let paymentIntent, let amount, let currency, let periodEnd, let renewal):
                if current.pending {
                    // The first invoice, paid before the session's event arrived: it starts the plan.
                    guard !renewal else { return false }
                    current.pending = false
                    current.startedAt = at
                    current.expiresAt = at.addingTimeInterval(current.length(from: at))
                    try await sql.update("marketplace_subscriptions").set("stripe_subscription", to: stripeSubscription)
                        .where("id", .equal, current.id).run()
                }
                try await Self.recordCharge(current.id, invoice: invoice, paymentRef: paymentIntent, kind: renewal ? "renewal" : "purchase",
                                            amount: amount, currency: currency, at: at, on: sql)
                if let periodEnd, periodEnd > current.expiresAt {
                    current.expiresAt = periodEnd
                    if renewal { current.renewals += 1 }
                }
                if current.state == .billingRetry || current.state == .gracePeriod { current.state = .active }
            case .paymentFailed:
                if current.state == .active { current.state = .billingRetry }
            case .refunded(let invoice, let paymentIntent, let amount, let full):
                guard let invoice = try await Self.chargedInvoice(invoice: invoice, paymentIntent: paymentIntent, on: sql) else { return false }
                recorded = try await Self.recordRefund(current.id, invoice: invoice, amount: amount, currency: current.price.currency, at: at, on: sql)
                if full {
                    current.revokedAt = current.revokedAt ?? at
                    current.state = .revoked
                    current.willRenew = false
                }
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
            guard current != before || recorded else { return false }
            try await Self.save(current, at: at, on: sql)
            try await sql.update("marketplace_subscriptions").set("pending", to: current.pending).where("id", .equal, current.id).run()
            changes.accounts.insert(current.accountId)
            return true
        }
    }

    /// A plan's charge, once per invoice and kind, with the PaymentIntent that paid it.
    static func recordCharge(_ subscription: UUID, invoice: String, paymentRef: String?, kind: String, amount: Int, currency: String, at: Date,
                             on sql: any SQLDatabase) async throws {
        try await sql.insert(into: "marketplace_subscription_charges")
            .columns("id", "subscription_id", "invoice", "payment_ref", "kind", "amount", "currency", "charged_at")
            .values(SQLBind(UUID()), SQLBind(subscription), SQLBind(invoice), SQLBind(paymentRef), SQLBind(kind), SQLBind(Int64(amount)),
                    SQLBind(currency.uppercased()), SQLBind(at))
            .ignoringConflicts(with: ["invoice", "kind"])
            .run()
    }

    /// The invoice a refund is of: the one the charge named, else the one paid with its PaymentIntent.
    static func chargedInvoice(invoice: String?, paymentIntent: String?, on sql: any SQLDatabase) async throws -> String? {
        if let invoice { return invoice }
        guard let paymentIntent else { return nil }
        return try await sql.select().column("invoice").from("marketplace_subscription_charges").where("payment_ref", .equal, paymentIntent)
            .first()?.decode(column: "invoice", as: String.self)
    }

    /// A refund of a plan's invoice, one row per invoice holding the total refunded so far (as a
    /// negative amount): a larger total replaces it, a replayed or older one changes nothing.
    /// Returns whether this call recorded it.
    static func recordRefund(_ subscription: UUID, invoice: String, amount: Int, currency: String, at: Date,
                             on sql: any SQLDatabase) async throws -> Bool {
        guard amount > 0 else { return false }
        return try await sql.raw("""
            INSERT INTO marketplace_subscription_charges (id, subscription_id, invoice, kind, amount, currency, charged_at)
            VALUES (\(bind: UUID()), \(bind: subscription), \(bind: invoice), 'refund', \(bind: Int64(-amount)), \(bind: currency.uppercased()), \(bind: at))
            ON CONFLICT (invoice, kind) DO UPDATE SET amount = excluded.amount, charged_at = excluded.charged_at
            WHERE marketplace_subscription_charges.amount > excluded.amount
            RETURNING id
            """).first() != nil
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
