import Foundation
import SQLKit
import SoukCore

extension PurchaseStore {
    /// How long a claimed pending purchase is left to its worker before another process may take it.
    public static let pendingLease: TimeInterval = 120

    /// The wait before attempt `attempts + 1` of a pending purchase: 2 s, doubling, at most 5 min.
    /// An outage is never a verdict: a pending purchase is retried until its store answers.
    public static func retryDelay(afterAttempts attempts: Int) -> TimeInterval {
        min(300, 2 * pow(2, Double(max(0, attempts - 1))))
    }

    /// Claims the pending purchase that is due soonest (its lease runs `pendingLease`), or nil.
    /// Two workers never claim the same one: the claim is a conditional update.
    public func claimPending() async throws -> PendingPurchase? {
        let at = now()
        for _ in 0..<5 {
            guard let candidate = try await database.sql.raw("""
                SELECT id, attempts FROM purchases WHERE status = \(bind: PurchaseStatus.pending.rawValue)
                AND next_attempt_at <= \(bind: at) ORDER BY next_attempt_at LIMIT 1
                """).first() else { return nil }
            let id = try candidate.decode(column: "id", as: UUID.self)
            let attempts = try candidate.decode(column: "attempts", as: Int.self)
            let claimed = try await database.sql.raw("""
                UPDATE purchases SET attempts = \(bind: attempts + 1), next_attempt_at = \(bind: at.addingTimeInterval(Self.pendingLease))
                WHERE id = \(bind: id) AND attempts = \(bind: attempts) AND status = \(bind: PurchaseStatus.pending.rawValue)
                RETURNING id, account_id, app, store, product_id, store_product_id, claimed_transaction_id, user_id, receipt
                """).first()
            guard let row = claimed else { continue }
            guard let store = CommerceStore(rawValue: try row.decode(column: "store", as: String.self)) else {
                throw PurchaseStoreError("pending purchase \(id) names an unknown store")
            }
            return PendingPurchase(
                paymentId: id, accountId: try row.decode(column: "account_id", as: UUID.self),
                productId: try row.decode(column: "product_id", as: String.self),
                claim: PurchaseClaim(store: store, app: try row.decode(column: "app", as: String.self),
                                     storeProductId: try row.decode(column: "store_product_id", as: String.self),
                                     transactionId: try row.decode(column: "claimed_transaction_id", as: String.self),
                                     userId: try row.decode(column: "user_id", as: String?.self),
                                     receipt: try row.decode(column: "receipt", as: String?.self) ?? ""),
                attempts: attempts + 1)
        }
        return nil
    }

    /// Puts a claimed pending purchase back, to be tried again after `retryDelay` (the store did
    /// not answer). `reason` is for the operator; it never holds the receipt.
    public func postpone(_ pending: PendingPurchase, reason: String) async throws {
        try await database.sql.raw("""
            UPDATE purchases SET next_attempt_at = \(bind: now().addingTimeInterval(Self.retryDelay(afterAttempts: pending.attempts))),
            last_error = \(bind: String(reason.prefix(1000))), updated_at = \(bind: now())
            WHERE id = \(bind: pending.paymentId) AND status = \(bind: PurchaseStatus.pending.rawValue)
            """).run()
    }

    /// When the next pending purchase is due (nil: none waits).
    public func nextPendingDue() async throws -> Date? {
        try await database.sql.raw("""
            SELECT MIN(next_attempt_at) AS due FROM purchases WHERE status = \(bind: PurchaseStatus.pending.rawValue)
            """).first()?.decode(column: "due", as: Date?.self)
    }
}
