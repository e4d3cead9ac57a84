import Foundation
import SQLKit
import SoukCore

/// A consumable's balance through a refund and its reversal. A refund takes the quantity back,
/// never below zero (what was used is gone), and notes on the purchase how much it took
/// (`refund_debited`); a store taking its refund back (Apple `REFUND_REVERSED`) credits exactly
/// that again, once: the purchase is no longer revoked afterwards, so a repeated or later-signed
/// reversal finds nothing to give back, and a later refund takes back again what is there.
extension PurchaseStore {
    /// Takes a revoked consumable's quantity back from its balance and notes how much was taken.
    static func takeBackRefunded(_ purchase: StoredPurchase, on sql: any SQLDatabase) async throws {
        guard purchase.productType == .consumable, let environment = purchase.environment else { return }
        let taken = try await debit(account: purchase.accountId, app: purchase.app, productId: purchase.productId, environment: environment,
                                    by: purchase.quantity, on: sql)
        try await sql.update("purchases").set("refund_debited", to: taken).where("id", .equal, purchase.paymentId).run()
    }

    /// The store took back its refund of `purchase` (still revoked as Souk held it): what the refund
    /// took is credited again. A purchase recorded already refunded was never credited, and one
    /// refunded before Souk counted what it took is assumed to have taken its quantity: either gets
    /// its quantity.
    static func giveBackReversed(_ purchase: StoredPurchase, on sql: any SQLDatabase) async throws {
        guard purchase.productType == .consumable, purchase.revokedAt != nil, let environment = purchase.environment else { return }
        let row = try await sql.select().column("refund_debited").from("purchases").where("id", .equal, purchase.paymentId).first()
        let amount = try row?.decode(column: "refund_debited", as: Int?.self) ?? purchase.quantity
        if amount > 0 {
            try await credit(account: purchase.accountId, app: purchase.app, productId: purchase.productId, environment: environment,
                             by: amount, on: sql)
        }
        try await sql.update("purchases").set("refund_debited", to: SQLLiteral.null).where("id", .equal, purchase.paymentId).run()
    }

    /// Takes up to `amount` from a balance, never below zero, and answers how much it took. The row
    /// is read by an `UPDATE` (locked until the commit on PostgreSQL; SQLite's write lock is held
    /// already), so a concurrent consumption cannot change it between the read and the write.
    @discardableResult
    static func debit(account: UUID, app: String, productId: String, environment: CommerceEnvironment, by amount: Int,
                      on sql: any SQLDatabase) async throws -> Int {
        let match = SQLQueryString("""
            app = \(bind: app) AND account_id = \(bind: account) AND product_id = \(bind: productId) AND environment = \(bind: environment.rawValue)
            """)
        guard let row = try await sql.raw("UPDATE consumable_balances SET balance = balance WHERE \(match) RETURNING balance").first() else {
            return 0
        }
        let taken = min(max(0, try row.decode(column: "balance", as: Int64.self)), Int64(max(0, amount)))
        if taken > 0 {
            try await sql.raw("UPDATE consumable_balances SET balance = balance - \(bind: taken) WHERE \(match)").run()
        }
        return Int(taken)
    }
}
