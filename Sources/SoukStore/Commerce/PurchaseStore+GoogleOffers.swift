import Foundation
import SQLKit
import SoukCore

extension PurchaseStore {
    /// The purchase option and offer a Google Play one-time product was bought through, as
    /// `purchases.productsv2` named them (nil for other stores and for purchases read through v1).
    public func googleOffer(_ paymentId: UUID) async throws -> (purchaseOptionId: String?, offerId: String?)? {
        guard let row = try await database.sql.select().column("store_purchase_option_id").column("store_offer_id").from("purchases")
            .where("id", .equal, paymentId).first() else { return nil }
        return (try row.decode(column: "store_purchase_option_id", as: String?.self), try row.decode(column: "store_offer_id", as: String?.self))
    }

    /// A quantity-based partial refund of a consumable (Google's `voidedQuantity`): that many are
    /// taken back from the balance (never below zero) and the purchase stays granted. Once per
    /// `dedup` (the voided order and time): a second sight changes nothing. Answers whether it
    /// took anything back now.
    public func refundPartially(app: String, store: CommerceStore, storeReference: String, quantity: Int, dedup: String,
                                at voidedAt: Date, source: LifecycleSource) async throws -> Bool {
        let at = now()
        return try await write(app: app, key: "reference:\(app)|\(store.rawValue)|\(storeReference)") { sql, changes in
            let rows = try await sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
                .where("app", .equal, app).where("store", .equal, store.rawValue).where("store_reference", .equal, storeReference)
                .where("status", .equal, PurchaseStatus.granted.rawValue).where("revoked_at", .is, SQLLiteral.null)
                .all().map(StoredPurchase.decode)
            guard let purchase = rows.first, purchase.productType == .consumable, let environment = purchase.environment else { return false }
            let event = CommerceEvent(app: app, accountId: purchase.accountId, type: .refund, source: source, environment: environment,
                                      occurredAt: voidedAt, createdAt: at, productId: purchase.productId, store: store.rawValue,
                                      transactionId: purchase.transactionId, originalTransactionId: purchase.originalTransactionId,
                                      paymentId: purchase.paymentId, expiresAt: nil, dedupKey: "\(LifecycleEventType.refund.rawValue)|partial|\(dedup)")
            guard try await CommerceEventStore.record(event, on: sql) else { return false }
            try await Self.debit(account: purchase.accountId, app: app, productId: purchase.productId, environment: environment,
                                 by: quantity, on: sql)
            changes.accounts.insert(purchase.accountId)
            return true
        }
    }
}
