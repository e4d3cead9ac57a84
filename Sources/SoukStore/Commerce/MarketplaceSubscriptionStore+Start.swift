import Foundation
import SQLKit
import SoukCore

/// Starting a membership plan: at most one live or pending plan per account and plan group.
extension MarketplaceSubscriptionStore {
    /// What `subscribe` did.
    public enum StartOutcome: Sendable, Equatable {
        /// A new subscription, paid for its first period from now (or pending at its processor).
        case started(MarketplaceSubscription)
        /// The account already holds a live or pending plan of the group (billing retry included):
        /// nothing was written.
        case held(MarketplaceSubscription)
    }

    /// A new subscription to `product`, unless the account holds a live or pending plan of its
    /// group (`product.group`, else its id; `groupProducts` are the products of that group in the
    /// catalog now, so that plans started under another group name count too). The account's
    /// development plans are brought up to date first, so a plan whose period is over is not held.
    /// Writes of one account take turns, and the partial unique index of (account, plan group)
    /// refuses a second live plan whatever path it took.
    /// `pending`: started at a processor that has not been paid yet (Stripe Checkout).
    public func subscribe(account: UUID, product: ProductDefinition, groupProducts: [String] = [], price: Price, sandbox: Bool,
                          processor: String, pending: Bool = false) async throws -> StartOutcome {
        guard let period = product.period else { throw PurchaseStoreError("\(product.id) has no period: it is not a subscription plan") }
        let group = product.group ?? product.id
        let members = Set(groupProducts + [product.id])
        let at = purchases.now()
        var subscription = MarketplaceSubscription(
            id: UUID(), accountId: account, productId: product.id, environment: sandbox ? .sandbox : .production, processor: processor,
            price: price, period: period, sandbox: sandbox, startedAt: at, expiresAt: at, renewals: 0, willRenew: true, state: .active,
            pending: pending, planGroup: group)
        subscription.expiresAt = at.addingTimeInterval(subscription.length(from: at))
        let row = subscription
        return try await purchases.write(app: Self.app, key: "msub:\(account.uuidString)") { sql, changes -> StartOutcome in
            for var held in try await Self.subscriptions(account: account, on: sql)
            where held.isLive && (held.planGroup == group || members.contains(held.productId)) {
                if held.processor == "development" {
                    let before = held
                    Self.advance(&held, to: at)
                    if held != before {
                        try await Self.save(held, at: at, on: sql)
                        changes.accounts.insert(account)
                    }
                }
                if held.isLive { return .held(held) }
            }
            let inserted = try await sql.raw("""
                INSERT INTO marketplace_subscriptions (\(unsafeRaw: Self.columns), created_at, updated_at)
                VALUES (\(bind: row.id), \(bind: row.accountId), \(bind: row.productId), \(bind: row.environment.rawValue), \(bind: row.processor),
                \(bind: row.price.currency), \(bind: Int64(row.price.amount)), \(bind: row.period.description), \(bind: row.sandbox),
                \(bind: row.startedAt), \(bind: row.expiresAt), \(bind: 0), \(bind: true), \(bind: SubscriptionState.active.rawValue),
                \(bind: String?.none), \(bind: Date?.none), \(bind: Date?.none), \(bind: row.pending), \(bind: String?.none), \(bind: group),
                \(bind: at), \(bind: at))
                ON CONFLICT DO NOTHING RETURNING id
                """).first() != nil
            guard inserted else {
                // The index refused it: another live plan of the group was written outside these turns.
                guard let held = try await Self.subscriptions(account: account, on: sql)
                    .first(where: { $0.isLive && $0.planGroup == group }) else {
                    throw PurchaseStoreError("a plan of group \(group) was refused as held, and no held plan of the group was found")
                }
                return .held(held)
            }
            changes.accounts.insert(account)
            return .started(row)
        }
    }

    /// Removes a pending plan whose checkout could not be made (the processor gave no session): it
    /// never opened anything, and the next checkout starts anew. False when it has a checkout or
    /// is not pending.
    @discardableResult
    public func removeUnstartedCheckout(_ id: UUID, account: UUID) async throws -> Bool {
        try await purchases.write(app: Self.app, key: "msub:\(account.uuidString)") { sql, _ -> Bool in
            try await sql.raw("""
                DELETE FROM marketplace_subscriptions WHERE id = \(bind: id) AND account_id = \(bind: account) AND pending = \(bind: true)
                AND checkout_url IS NULL RETURNING id
                """).first() != nil
        }
    }

    /// A new subscription (see `subscribe`); a plan of the group already held is an error here.
    public func start(account: UUID, product: ProductDefinition, price: Price, sandbox: Bool, processor: String,
                      pending: Bool = false) async throws -> MarketplaceSubscription {
        switch try await subscribe(account: account, product: product, price: price, sandbox: sandbox, processor: processor, pending: pending) {
        case .started(let subscription): return subscription
        case .held(let held): throw PurchaseStoreError("the account already holds plan \(held.productId) of group \(held.planGroup ?? held.productId)")
        }
    }
}
