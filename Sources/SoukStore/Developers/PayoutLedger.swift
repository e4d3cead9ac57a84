import Foundation
import SQLKit
import SoukCore

/// One currency's sales and refunds of an organisation's apps in a period, in minor units.
public struct PayoutTotals: Sendable, Equatable {
    public var currency: String
    public var sales: Int
    public var gross: Int64
    public var refundCount: Int
    public var refunds: Int64
}

/// What a developer organisation's apps sold and refunded through the marketplace's own checkout
/// (`marketplace_orders` of apps whose `apps.developer_id` is the organisation), for payout
/// statements (docs/developers.md, "Payouts"). Only production money counts (sandbox orders are
/// tests). A sale counts in the period it was paid in (what the processor charged); a refund in
/// the period it was recorded in, with the total refunded of its order.
public struct PayoutLedger: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// Totals per currency of the sales paid and refunds recorded in `from ..< to`.
    public func totals(developer id: String, from: Date, to: Date) async throws -> [PayoutTotals] {
        let production = CommerceEnvironment.production.rawValue
        let paid = MarketplaceOrder.Status.paid.rawValue, refunded = MarketplaceOrder.Status.refunded.rawValue
        let sales = try await database.sql.raw("""
            SELECT o.currency AS currency, COUNT(*) AS n, CAST(SUM(COALESCE(o.amount_paid, o.amount)) AS BIGINT) AS total
            FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            WHERE a.developer_id = \(bind: id) AND o.environment = \(bind: production)
            AND o.status IN (\(bind: paid), \(bind: refunded)) AND o.paid_at >= \(bind: from) AND o.paid_at < \(bind: to)
            GROUP BY o.currency
            """).all()
        let refunds = try await database.sql.raw("""
            SELECT o.currency AS currency, COUNT(*) AS n, CAST(SUM(o.amount_refunded) AS BIGINT) AS total
            FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            WHERE a.developer_id = \(bind: id) AND o.environment = \(bind: production)
            AND o.amount_refunded IS NOT NULL AND o.amount_refunded > 0 AND o.refunded_at >= \(bind: from) AND o.refunded_at < \(bind: to)
            GROUP BY o.currency
            """).all()
        var totals: [String: PayoutTotals] = [:]
        for row in sales {
            let currency = try row.decode(column: "currency", as: String.self)
            totals[currency, default: PayoutTotals(currency: currency, sales: 0, gross: 0, refundCount: 0, refunds: 0)].sales =
                try row.decode(column: "n", as: Int.self)
            totals[currency]?.gross = try row.decode(column: "total", as: Int64.self)
        }
        for row in refunds {
            let currency = try row.decode(column: "currency", as: String.self)
            totals[currency, default: PayoutTotals(currency: currency, sales: 0, gross: 0, refundCount: 0, refunds: 0)].refundCount =
                try row.decode(column: "n", as: Int.self)
            totals[currency]?.refunds = try row.decode(column: "total", as: Int64.self)
        }
        return totals.values.sorted { $0.currency < $1.currency }
    }
}
