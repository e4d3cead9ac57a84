import Foundation
import SoukCore
import SoukStore

/// One line of what a person paid or got back from the marketplace: `GET /api/v1/purchases` and
/// the account page's receipts list the same lines.
package struct Receipt: Sendable {
    package enum Item: Sendable, Equatable {
        case app(UInt64)
        case plan(String)
    }

    /// `purchase`, `renewal` or `refund`.
    package var kind: String
    package var item: Item
    /// Minor units, as the processor charged them; a refund is negative (the total refunded).
    package var amount: Int
    package var currency: String
    package var date: Date
    package var environment: CommerceEnvironment

    package var json: [String: Any] {
        var entry: [String: Any] = ["kind": kind, "amount": amount, "currency": currency, "date": RFC3339.format(date),
                                    "environment": environment.rawValue]
        switch item {
        case .app(let appleItemId): entry["appleItemId"] = String(appleItemId)
        case .plan(let productId): entry["productId"] = productId
        }
        return entry
    }

    /// The account's receipts, newest first: paid (and refunded) orders of apps, and membership
    /// plans — invoice by invoice as Stripe charged them, or, for plans that move no money, their
    /// periods at the plan's price. Open, failed and cancelled orders are not purchases.
    package static func all(account: UUID, orders: MarketplaceOrderStore, plans: MarketplaceSubscriptionStore) async throws -> [Receipt] {
        var receipts: [Receipt] = []
        for order in try await orders.orders(account: account) {
            if let paidAt = order.paidAt, order.status == .paid || order.status == .refunded {
                receipts.append(Receipt(kind: "purchase", item: .app(order.appleItemId), amount: order.amountPaid ?? order.price.amount,
                                        currency: order.price.currency, date: paidAt, environment: order.environment))
            }
            if let refundedAt = order.refundedAt, order.status == .refunded || (order.amountRefunded ?? 0) > 0 {
                receipts.append(Receipt(kind: "refund", item: .app(order.appleItemId), amount: -(order.amountRefunded ?? order.amountPaid ?? 0),
                                        currency: order.price.currency, date: refundedAt, environment: order.environment))
            }
        }
        let byPlan = Dictionary(grouping: try await plans.charges(account: account), by: \.subscriptionId)
        for subscription in try await plans.subscriptions(account: account) where !subscription.pending {
            let item = Receipt.Item.plan(subscription.productId)
            if let charged = byPlan[subscription.id] {
                receipts += charged.map { Receipt(kind: $0.kind, item: item, amount: $0.amount, currency: $0.currency, date: $0.date,
                                                  environment: subscription.environment) }
                continue
            }
            // Periods run back to back from the first: the first is the purchase, each later one a renewal.
            var start = subscription.expiresAt
            var starts: [Date] = []
            for _ in 0...subscription.renewals {
                start = start.addingTimeInterval(-subscription.length(from: start))
                starts.insert(start, at: 0)
            }
            for (index, date) in starts.enumerated() {
                receipts.append(Receipt(kind: index == 0 ? "purchase" : "renewal", item: item, amount: subscription.price.amount,
                                        currency: subscription.price.currency, date: date, environment: subscription.environment))
            }
            if let revokedAt = subscription.revokedAt {
                receipts.append(Receipt(kind: "refund", item: item, amount: -subscription.price.amount, currency: subscription.price.currency,
                                        date: revokedAt, environment: subscription.environment))
            }
        }
        return receipts.sorted { $0.date > $1.date }
    }
}
