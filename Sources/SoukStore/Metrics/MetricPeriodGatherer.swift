import Foundation
import SQLKit
import SoukCore

/// Turns Souk's own records of one app into the `MetricPeriod`s `SubscriptionMetrics` takes
/// (docs/metrics.md, "Where the periods come from"): every granted store transaction (`purchases`),
/// the marketplace's paid-app orders of the app (`marketplace_orders`), and, for the marketplace
/// itself (`AppPricing.marketplaceApp`), its membership plans (`marketplace_subscriptions`).
/// Reads only; the rollup job calls it once per app it recomputes.
public struct MetricPeriodGatherer: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// Every period of `app`, production and sandbox alike (the rule chooses the environment).
    public func periods(app: String) async throws -> [MetricPeriod] {
        let catalog = try await CommerceCatalogStore(database: database).state(app: app)
        var periods = try await storePeriods(app: app, catalog: catalog)
        periods += try await orderPeriods(app: app)
        if app == AppPricing.marketplaceApp { periods += try await planPeriods() }
        return periods
    }

    /// Every app that has anything to count: a granted store transaction, a paid order, or the
    /// marketplace's own plans.
    public func apps() async throws -> [String] {
        let rows = try await database.sql.raw("""
            SELECT DISTINCT app FROM purchases WHERE status = 'granted' AND purchase_date IS NOT NULL
            UNION SELECT DISTINCT a.bundle_id AS app FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            WHERE o.paid_at IS NOT NULL
            UNION SELECT CAST(\(bind: AppPricing.marketplaceApp) AS TEXT) AS app FROM marketplace_subscriptions WHERE pending IS NULL OR pending = \(bind: false)
            """).all()
        return try Set(rows.map { try $0.decode(column: "app", as: String.self) }).sorted()
    }

    // MARK: Store transactions

    func storePeriods(app: String, catalog: CommerceCatalogState?) async throws -> [MetricPeriod] {
        let rows = try await database.sql.raw("""
            SELECT p.id, p.account_id, p.store, p.environment, p.product_id, p.transaction_id, p.original_transaction_id, p.product_type,
            p.purchase_date, p.expires_date, p.revoked_at, p.subscription_state, p.will_renew, p.grace_expires_at, p.period_type,
            p.refunded_amount, p.price_milliunits, p.currency, p.country,
            (SELECT MIN(e.occurred_at) FROM commerce_events e WHERE e.payment_id = p.id AND e.type = 'refund') AS refund_event_at
            FROM purchases p WHERE p.app = \(bind: app) AND p.status = 'granted' AND p.purchase_date IS NOT NULL
            """).all()
        return try rows.map { row in
            let store = try row.decode(column: "store", as: String.self)
            let id = try row.decode(column: "id", as: UUID.self)
            let transaction = try row.decode(column: "transaction_id", as: String?.self) ?? id.uuidString
            let original = try row.decode(column: "original_transaction_id", as: String?.self) ?? transaction
            let productId = try row.decode(column: "product_id", as: String.self)
            let type = ProductType(rawValue: try row.decode(column: "product_type", as: String.self))
            let state = (try row.decode(column: "subscription_state", as: String?.self)).flatMap(SubscriptionState.init(rawValue:))
            let isTrial = try row.decode(column: "period_type", as: String?.self) == PeriodType.trial.rawValue
            var start = try row.decode(column: "purchase_date", as: Date.self)
            let milli = try row.decode(column: "price_milliunits", as: Int64?.self)
            let currency = try row.decode(column: "currency", as: String?.self)
            let subscription = type == .autoRenewable
            let expires = try row.decode(column: "expires_date", as: Date?.self)
            let account = try row.decode(column: "account_id", as: UUID.self)
            let sandbox = try row.decode(column: "environment", as: String?.self) == CommerceEnvironment.sandbox.rawValue
            let billingPeriod = subscription ? catalog?.product(productId)?.period : nil
            if store == CommerceStore.googlePlay.rawValue, !sandbox, !isTrial, let expires, let billingPeriod {
                start = max(start, Self.googlePeriodStart(expires: expires, billingPeriod: billingPeriod))
            }
            var period = MetricPeriod(
                subscription: "\(store)|\(original)", account: account.uuidString.lowercased(),
                app: app, store: store, product: productId,
                sandbox: sandbox, kind: subscription ? .subscription : .oneTime, start: start,
                end: subscription ? expires : nil, isTrial: isTrial,
                price: 0, currency: currency ?? "", billingPeriod: billingPeriod?.description)
            period.country = CountryCode.normalized(try row.decode(column: "country", as: String?.self))
            if !isTrial {
                if let milli, let currency, let minor = Self.minorUnits(milli, currency) {
                    period.price = minor
                } else {
                    period.priceKnown = false
                }
            }
            if subscription {
                period.endedInBillingRetry = state == .gracePeriod || state == .billingRetry
                period.graceUntil = try row.decode(column: "grace_expires_at", as: Date?.self)
                // Souk keeps that auto-renew is off, not when it was turned off: during the period.
                if try row.decode(column: "will_renew", as: Bool?.self) == false, state != .revoked { period.autoRenewOffAt = start }
            }
            let revoked = try row.decode(column: "revoked_at", as: Date?.self)
            let refundEvent = try row.decode(column: "refund_event_at", as: Date?.self)
            if let at = revoked ?? refundEvent {
                let refunded = (try row.decode(column: "refunded_amount", as: Int64?.self)).flatMap { Self.minorUnits($0, currency ?? "") }
                period.refund = MetricPeriod.Refund(at: at, amount: refunded ?? (period.priceKnown ? period.price : 0), endsAccess: revoked != nil)
            }
            return period
        }
    }

    /// When a Google Play period began. `subscriptionsv2` states the subscription's start and the
    /// current period's expiry but not when that period began, so intake records a renewal with the
    /// subscription's start as its purchase date; a paid production period begins one billing period
    /// before its expiry (never before the subscription's start: the caller takes the later of the
    /// two). Trials and sandbox periods (Google's test renewals run minutes, not the plan's period)
    /// keep the recorded date.
    static func googlePeriodStart(expires: Date, billingPeriod: ISODuration) -> Date {
        billingPeriod.subtracted(from: expires)
    }

    /// Milli-units (the stores' unit) as minor units of `currency`, rounded half away from zero;
    /// nil for a code that is not a currency.
    static func minorUnits(_ milli: Int64, _ currency: String) -> Int64? {
        guard ISO4217.isCurrency(currency) else { return nil }
        var exact = Decimal(milli) / 1000
        for _ in 0..<ISO4217.minorDigits(currency) { exact *= 10 }
        return CurrencyConverter.rounded(exact)
    }

    // MARK: The marketplace's own sales

    /// Paid-app orders: one-time payments on the day they were paid, refunds on theirs.
    func orderPeriods(app: String) async throws -> [MetricPeriod] {
        let rows = try await database.sql.raw("""
            SELECT o.id, o.account_id, o.currency, o.amount, o.amount_paid, o.amount_refunded, o.environment, o.status, o.paid_at,
            o.refunded_at FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            WHERE a.bundle_id = \(bind: app) AND o.paid_at IS NOT NULL
            """).all()
        return try rows.map { row in
            let amount = try row.decode(column: "amount", as: Int64.self)
            let paid = try row.decode(column: "amount_paid", as: Int64?.self) ?? amount
            let id = try row.decode(column: "id", as: UUID.self), account = try row.decode(column: "account_id", as: UUID.self)
            var period = MetricPeriod(
                subscription: "order|\(id.uuidString.lowercased())", account: account.uuidString.lowercased(), app: app, store: "marketplace",
                product: app, sandbox: try row.decode(column: "environment", as: String.self) == CommerceEnvironment.sandbox.rawValue,
                kind: .oneTime, start: try row.decode(column: "paid_at", as: Date.self), end: nil, price: paid,
                currency: try row.decode(column: "currency", as: String.self), billingPeriod: nil)
            if let at = try row.decode(column: "refunded_at", as: Date?.self) {
                period.refund = MetricPeriod.Refund(at: at, amount: try row.decode(column: "amount_refunded", as: Int64?.self) ?? paid,
                                                    endsAccess: try row.decode(column: "status", as: String.self) == "refunded")
            }
            return period
        }
    }

    /// Membership plans: one row renewed in place, so its periods are rebuilt from its start, one
    /// plan period each (`renewals` of them after the first), the last ending at its expiry.
    func planPeriods() async throws -> [MetricPeriod] {
        let rows = try await database.sql.raw("""
            SELECT id, account_id, product_id, currency, amount, period, sandbox, started_at, expires_at, renewals, will_renew, state,
            grace_expires_at, revoked_at FROM marketplace_subscriptions WHERE pending IS NULL OR pending = \(bind: false)
            """).all()
        var periods: [MetricPeriod] = []
        for row in rows {
            let id = (try row.decode(column: "id", as: UUID.self)).uuidString.lowercased()
            let account = (try row.decode(column: "account_id", as: UUID.self)).uuidString.lowercased()
            let product = try row.decode(column: "product_id", as: String.self)
            let length = try row.decode(column: "period", as: String.self)
            guard let duration = ISODuration(length) else { continue }
            let sandbox = try row.decode(column: "sandbox", as: Bool.self)
            let renewals = max(0, try row.decode(column: "renewals", as: Int.self))
            let expires = try row.decode(column: "expires_at", as: Date.self)
            let state = SubscriptionState(rawValue: try row.decode(column: "state", as: String.self))
            var start = try row.decode(column: "started_at", as: Date.self)
            for index in 0...renewals {
                let last = index == renewals
                let end = last ? expires : (sandbox ? start + SandboxSchedule.compressed(duration) : duration.added(to: start))
                var period = MetricPeriod(subscription: "plan|\(id)", account: account, app: AppPricing.marketplaceApp, store: "marketplace",
                                          product: product, sandbox: sandbox, start: start, end: end,
                                          price: try row.decode(column: "amount", as: Int64.self),
                                          currency: try row.decode(column: "currency", as: String.self), billingPeriod: duration.description)
                if last {
                    period.endedInBillingRetry = state == .gracePeriod || state == .billingRetry
                    period.graceUntil = try row.decode(column: "grace_expires_at", as: Date?.self)
                    if try row.decode(column: "will_renew", as: Bool.self) == false, state != .revoked { period.autoRenewOffAt = start }
                    if let at = try row.decode(column: "revoked_at", as: Date?.self) {
                        period.refund = MetricPeriod.Refund(at: at, amount: period.price, endsAccess: true)
                    }
                }
                periods.append(period)
                start = end
            }
        }
        return periods
    }
}
