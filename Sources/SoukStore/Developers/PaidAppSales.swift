import Foundation
import SQLKit
import SoukCore

/// A sale of one of an organisation's paid marketplace apps through the marketplace's own checkout,
/// as its developer sees it: the buyer by their account token in that app, never by email.
public struct PaidAppSale: Sendable, Equatable {
    public var orderId: UUID
    public var appleItemId: UInt64
    public var appName: String
    public var accountToken: UUID
    public var currency: String
    /// What the buyer paid, in the currency's minor units.
    public var amount: Int64
    public var environment: String
    /// `paid` or `refunded`.
    public var status: String
    public var paidAt: Date?
    public var amountRefunded: Int64?
    public var refundedAt: Date?
}

/// The paid-app sales of an organisation's apps (`marketplace_orders` of apps whose
/// `apps.developer_id` is the organisation), newest first: orders paid, and those refunded since.
public struct PaidAppSales: Sendable {
    let database: SoukDatabase
    let tokens: AccountTokenStore

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.tokens = AccountTokenStore(database: database, now: now)
    }

    /// The newest `limit` sales of the organisation `developer`'s apps. The buyers' tokens come
    /// with the orders, in one query; buyers the app never asked a token for get theirs made
    /// together (`AccountTokenStore.tokens`), so the statements do not grow with the rows.
    public func sales(developer: String, limit: Int) async throws -> [PaidAppSale] {
        let paid = MarketplaceOrder.Status.paid.rawValue, refunded = MarketplaceOrder.Status.refunded.rawValue
        let rows = try await database.sql.raw("""
            SELECT o.id AS id, o.apple_item_id AS apple_item_id, a.name AS name, a.bundle_id AS bundle_id, o.account_id AS account_id,
            t.token AS token, o.currency AS currency, COALESCE(o.amount_paid, o.amount) AS amount, o.environment AS environment,
            o.status AS status, o.paid_at AS paid_at, o.amount_refunded AS amount_refunded, o.refunded_at AS refunded_at
            FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            LEFT JOIN account_tokens t ON t.account_id = o.account_id AND t.app = a.bundle_id
            WHERE a.developer_id = \(bind: developer) AND o.status IN (\(bind: paid), \(bind: refunded))
            ORDER BY o.paid_at DESC, o.id LIMIT \(literal: limit)
            """).all()
        let holders = try rows.map { row in
            (AccountTokenStore.Holder(account: try row.decode(column: "account_id", as: UUID.self), app: try row.decode(column: "bundle_id", as: String.self)),
             try row.decode(column: "token", as: String?.self).flatMap(UUID.init(uuidString:)))
        }
        let made = try await tokens.tokens(Set(holders.filter { $0.1 == nil }.map(\.0)))
        var sales: [PaidAppSale] = []
        for (row, (holder, stored)) in zip(rows, holders) {
            guard let token = stored ?? made[holder] else {
                throw PurchaseStoreError("account token of \(holder.account) in \(holder.app) is not a UUID")
            }
            sales.append(PaidAppSale(
                orderId: try row.decode(column: "id", as: UUID.self),
                appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
                appName: try row.decode(column: "name", as: String.self), accountToken: token,
                currency: try row.decode(column: "currency", as: String.self), amount: try row.decode(column: "amount", as: Int64.self),
                environment: try row.decode(column: "environment", as: String.self), status: try row.decode(column: "status", as: String.self),
                paidAt: try row.decode(column: "paid_at", as: Date?.self),
                amountRefunded: try row.decode(column: "amount_refunded", as: Int64?.self),
                refundedAt: try row.decode(column: "refunded_at", as: Date?.self)))
        }
        return sales
    }
}
