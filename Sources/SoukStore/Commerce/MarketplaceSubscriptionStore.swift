import Foundation
import SQLKit
import SoukCore

/// A membership plan someone subscribed to through the marketplace (`marketplace_subscriptions`).
public struct MarketplaceSubscription: Sendable, Equatable {
    public var id: UUID
    public var accountId: UUID
    public var productId: String
    public var environment: CommerceEnvironment
    public var processor: String
    public var price: Price
    public var period: ISODuration
    public var sandbox: Bool
    public var startedAt: Date
    public var expiresAt: Date
    public var renewals: Int
    public var willRenew: Bool
    public var state: SubscriptionState
    public var failNext: String?
    public var graceExpiresAt: Date?
    public var revokedAt: Date?
    /// Started at a payment processor and not paid yet (Stripe): opens nothing.
    public var pending = false
    /// Where the buyer pays a pending one (Stripe Checkout).
    public var checkoutURL: String?
    /// The plan group of its product when it started: an account holds one live plan per group.
    public var planGroup: String?

    /// Still held: every state but expired and revoked — a plan in billing retry or grace period
    /// included, as its payment is still being collected.
    public var isLive: Bool { state != .expired && state != .revoked }

    /// How long one period lasts: Apple's accelerated sandbox length, or the plan's own.
    public func length(from start: Date) -> TimeInterval {
        sandbox ? SandboxSchedule.compressed(period) : period.added(to: start).timeIntervalSince(start)
    }

    /// The record the entitlement engine reads.
    var record: PurchaseRecord {
        PurchaseRecord(paymentId: id, productId: productId, type: .autoRenewable, environment: environment, purchaseDate: startedAt,
                       expiresDate: expiresAt, revokedAt: revokedAt, quantity: 1, graceExpiresDate: state == .gracePeriod ? graceExpiresAt : nil)
    }
}

/// Membership plans sold by the marketplace itself and their lifecycle: a
/// subscription is one row whose period is renewed in place — by the development processor's
/// renewal pass (no money moves; sandbox subscriptions on Apple's accelerated schedule, at most
/// `SandboxSchedule.maxRenewals` times, then they end) — or ended, failed, refunded by `souk
/// sandbox` commands. Every change goes through the purchase store's write, so the entitlement
/// index of every process hears of it.
public struct MarketplaceSubscriptionStore: Sendable {
    let purchases: PurchaseStore

    public init(purchases: PurchaseStore) {
        self.purchases = purchases
    }

    static let app = AppPricing.marketplaceApp
    static let columns = "id, account_id, product_id, environment, processor, currency, amount, period, sandbox, started_at, expires_at, renewals, " +
        "will_renew, state, fail_next, grace_expires_at, revoked_at, pending, checkout_url, plan_group"

    public func subscriptions(account: UUID) async throws -> [MarketplaceSubscription] {
        try await Self.subscriptions(account: account, on: purchases.database.sql)
    }

    static func subscriptions(account: UUID, on sql: any SQLDatabase) async throws -> [MarketplaceSubscription] {
        try await sql.raw("""
            SELECT \(unsafeRaw: columns) FROM marketplace_subscriptions WHERE account_id = \(bind: account) ORDER BY started_at DESC
            """).all().map(decode)
    }

    /// Renews, fails or ends every development subscription whose period is over at `now` (several
    /// periods at once after `souk sandbox advance`). Returns how many subscriptions changed.
    @discardableResult
    public func renewDue() async throws -> Int {
        let at = purchases.now()
        let due = try await purchases.database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM marketplace_subscriptions WHERE processor = 'development'
            AND ((state = \(bind: SubscriptionState.active.rawValue) AND expires_at <= \(bind: at))
              OR (state IN (\(bind: SubscriptionState.gracePeriod.rawValue), \(bind: SubscriptionState.billingRetry.rawValue)) AND grace_expires_at <= \(bind: at)))
            """).all().map(Self.decode)
        var changed = 0
        for subscription in due {
            let renewed = try await purchases.write(app: Self.app, key: "msub:\(subscription.accountId.uuidString)") { sql, changes -> Bool in
                guard var current = try await Self.subscription(subscription.id, on: sql) else { return false }
                let before = current
                Self.advance(&current, to: at)
                guard current != before else { return false }
                try await Self.save(current, at: at, on: sql)
                changes.accounts.insert(current.accountId)
                return true
            }
            if renewed { changed += 1 }
        }
        return changed
    }

    /// The lifecycle of a development subscription up to `now`: renewals while it renews (a sandbox
    /// one at most `SandboxSchedule.maxRenewals` times), a failed renewal into billing retry (no
    /// access) or a grace period (access kept) for one period, then the end.
    static func advance(_ s: inout MarketplaceSubscription, to now: Date) {
        while true {
            switch s.state {
            case .active where s.expiresAt <= now:
                if !s.willRenew || (s.sandbox && s.renewals >= SandboxSchedule.maxRenewals) {
                    s.state = .expired
                    s.willRenew = false
                    return
                }
                if let failure = s.failNext {
                    s.state = failure == "grace" ? .gracePeriod : .billingRetry
                    s.graceExpiresAt = s.expiresAt.addingTimeInterval(s.length(from: s.expiresAt))
                    s.failNext = nil
                    continue
                }
                let next = s.expiresAt.addingTimeInterval(s.length(from: s.expiresAt))
                s.renewals += 1
                s.expiresAt = next
            case .gracePeriod, .billingRetry:
                guard let end = s.graceExpiresAt, end <= now else { return }
                s.state = .expired
                s.willRenew = false
                return
            default:
                return
            }
        }
    }

    // MARK: souk sandbox

    /// Moves sandbox subscription time forward by `minutes` (never production, licenses or tokens):
    /// every sandbox subscription's dates move back by as much, and the renewal pass catches up.
    public func advanceSandbox(minutes: Int) async throws -> Int64 {
        let seconds = Int64(minutes) * 60
        let sql = purchases.database.sql
        let rows = try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM marketplace_subscriptions WHERE sandbox = \(bind: true)").all().map(Self.decode)
        for row in rows {
            try await purchases.write(app: Self.app, key: "msub:\(row.accountId.uuidString)") { sql, changes in
                guard var current = try await Self.subscription(row.id, on: sql) else { return }
                let shift = -TimeInterval(seconds)
                current.startedAt = current.startedAt.addingTimeInterval(shift)
                current.expiresAt = current.expiresAt.addingTimeInterval(shift)
                current.graceExpiresAt = current.graceExpiresAt?.addingTimeInterval(shift)
                try await Self.save(current, at: purchases.now(), on: sql)
                changes.accounts.insert(current.accountId)
            }
        }
        try await sql.raw("UPDATE sandbox_clock SET offset_seconds = offset_seconds + \(bind: seconds) WHERE id = 1").run()
        try await renewDue()
        return try await sandboxOffset()
    }

    public func sandboxOffset() async throws -> Int64 {
        try await purchases.database.sql.raw("SELECT offset_seconds FROM sandbox_clock WHERE id = 1").first()?
            .decode(column: "offset_seconds", as: Int64.self) ?? 0
    }

    public enum SandboxAction: Sendable {
        case cancel
        case failRenewal(grace: Bool)
        case refund
    }

    /// Applies `action` to the account's live sandbox subscription of `productId`; false when there is none.
    public func sandbox(_ action: SandboxAction, account: UUID, productId: String) async throws -> Bool {
        let at = purchases.now()
        return try await purchases.write(app: Self.app, key: "msub:\(account.uuidString)") { sql, changes -> Bool in
            guard var current = try await Self.subscriptions(account: account, on: sql)
                .first(where: { $0.productId == productId && $0.sandbox && $0.state != .expired && $0.state != .revoked }) else { return false }
            switch action {
            case .cancel: current.willRenew = false
            case .failRenewal(let grace): current.failNext = grace ? "grace" : "retry"
            case .refund:
                current.revokedAt = at
                current.state = .revoked
                current.willRenew = false
            }
            try await Self.save(current, at: at, on: sql)
            changes.accounts.insert(account)
            return true
        }
    }

    /// Deletes the account's sandbox subscriptions (of `productId`, or all). Returns how many.
    public func clearSandbox(account: UUID, productId: String?) async throws -> Int {
        try await purchases.write(app: Self.app, key: "msub:\(account.uuidString)") { sql, changes -> Int in
            let rows = try await Self.subscriptions(account: account, on: sql).filter { $0.sandbox && (productId == nil || $0.productId == productId) }
            for row in rows { try await sql.raw("DELETE FROM marketplace_subscriptions WHERE id = \(bind: row.id)").run() }
            if !rows.isEmpty { changes.accounts.insert(account) }
            return rows.count
        }
    }

    // MARK: Rows

    static func subscription(_ id: UUID, on sql: any SQLDatabase) async throws -> MarketplaceSubscription? {
        try await sql.raw("SELECT \(unsafeRaw: columns) FROM marketplace_subscriptions WHERE id = \(bind: id)").first().map(decode)
    }

    static func save(_ s: MarketplaceSubscription, at: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            UPDATE marketplace_subscriptions SET started_at = \(bind: s.startedAt), expires_at = \(bind: s.expiresAt), renewals = \(bind: s.renewals),
            will_renew = \(bind: s.willRenew), state = \(bind: s.state.rawValue), fail_next = \(bind: s.failNext),
            grace_expires_at = \(bind: s.graceExpiresAt), revoked_at = \(bind: s.revokedAt), updated_at = \(bind: at)
            WHERE id = \(bind: s.id)
            """).run()
    }

    static func decode(_ row: any SQLRow) throws -> MarketplaceSubscription {
        MarketplaceSubscription(
            id: try row.decode(column: "id", as: UUID.self), accountId: try row.decode(column: "account_id", as: UUID.self),
            productId: try row.decode(column: "product_id", as: String.self),
            environment: CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) ?? .sandbox,
            processor: try row.decode(column: "processor", as: String.self),
            price: Price(currency: try row.decode(column: "currency", as: String.self), amount: Int(try row.decode(column: "amount", as: Int64.self))),
            period: ISODuration(try row.decode(column: "period", as: String.self)) ?? ISODuration(months: 1),
            sandbox: try row.decode(column: "sandbox", as: Bool.self), startedAt: try row.decode(column: "started_at", as: Date.self),
            expiresAt: try row.decode(column: "expires_at", as: Date.self), renewals: try row.decode(column: "renewals", as: Int.self),
            willRenew: try row.decode(column: "will_renew", as: Bool.self),
            state: SubscriptionState(rawValue: try row.decode(column: "state", as: String.self)) ?? .expired,
            failNext: try row.decode(column: "fail_next", as: String?.self),
            graceExpiresAt: try row.decode(column: "grace_expires_at", as: Date?.self), revokedAt: try row.decode(column: "revoked_at", as: Date?.self),
            pending: try row.decode(column: "pending", as: Bool?.self) ?? false, checkoutURL: try row.decode(column: "checkout_url", as: String?.self),
            planGroup: try row.decode(column: "plan_group", as: String?.self))
    }
}
