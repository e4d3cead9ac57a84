import Foundation
import SQLKit
import SoukCore

extension PurchaseStore {
    /// Revokes a granted purchase (an operator's refund, `souk purchases revoke`): access ends now;
    /// a consumable's balance loses its quantity (never below zero). Revoking again changes nothing.
    /// Returns the payment after, or nil when there is no such payment.
    @discardableResult
    public func revoke(_ paymentId: UUID, reason: String = "operator") async throws -> StoredPurchase? {
        let at = now()
        guard let payment = try await payment(paymentId) else { return nil }
        return try await write(app: payment.app, key: "payment:\(paymentId.uuidString)") { sql, changes in
            guard let current = try await Self.payment(paymentId, on: sql) else { return nil }
            guard current.status == .granted, current.revokedAt == nil else { return current }
            try await Self.markRevoked(current, at: at, reason: reason, now: at, on: sql)
            try await Self.recordEvent(.refund, about: current, source: .operator,
                                       dedup: "\(current.store.rawValue)|\(current.transactionId ?? current.paymentId.uuidString.lowercased())", at: at, on: sql)
            changes.accounts.insert(current.accountId)
            return try await Self.payment(paymentId, on: sql)
        }
    }

    /// Why a consumption was refused.
    public enum ConsumeFailure: Error, Sendable, Equatable {
        /// The balance is smaller than the quantity asked (it is left as it was).
        case insufficient(balance: Int)
    }

    /// Uses `quantity` of a consumable: one conditional `UPDATE`, so the balance never goes below
    /// zero however many requests race. Returns the balance after.
    public func consume(account: UUID, app: String, productId: String, environment: CommerceEnvironment,
                        quantity: Int = 1, source: LifecycleSource = .intake) async throws -> Result<Int, ConsumeFailure> {
        let now = now()
        let amount = Int64(max(1, quantity))
        return try await write(app: app, key: "balance:\(app)|\(account.uuidString)") { sql, changes in
            let row = try await sql.raw("""
                UPDATE consumable_balances SET balance = balance - \(bind: amount)
                WHERE app = \(bind: app) AND account_id = \(bind: account) AND product_id = \(bind: productId)
                AND environment = \(bind: environment.rawValue) AND balance >= \(bind: amount)
                RETURNING balance
                """).first()
            guard let row else {
                let balance = try await sql.raw("""
                    SELECT balance FROM consumable_balances WHERE app = \(bind: app) AND account_id = \(bind: account)
                    AND product_id = \(bind: productId) AND environment = \(bind: environment.rawValue)
                    """).first()?.decode(column: "balance", as: Int64.self) ?? 0
                return .failure(.insufficient(balance: Int(balance)))
            }
            changes.accounts.insert(account)
            let at = now
            try await CommerceEventStore.record(CommerceEvent(
                app: app, accountId: account, type: .consumption, source: source, environment: environment, occurredAt: at, createdAt: at,
                productId: productId, dedupKey: "\(LifecycleEventType.consumption.rawValue)|\(UUID().uuidString.lowercased())"), on: sql)
            return .success(Int(try row.decode(column: "balance", as: Int64.self)))
        }
    }
}
