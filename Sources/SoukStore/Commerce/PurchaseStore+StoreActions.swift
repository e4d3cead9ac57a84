import Foundation
import SQLKit
import SoukCore

/// What Souk owes a store about a purchase (Google Play): an acknowledgement within 3 days of the
/// purchase, or, for a consumable, its consumption (which acknowledges it too).
public struct StoreAction: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case acknowledge
        case consume
    }

    public var paymentId: UUID
    public var app: String
    public var store: CommerceStore
    public var kind: Kind
    public var storeProductId: String
    public var productType: ProductType
    /// Google's purchase token (never logged).
    public var storeReference: String
    /// Attempts including the one this claim starts.
    public var attempts: Int
    public var purchaseDate: Date?
}

/// The durable queue of store actions: rows of `purchases` with
/// `store_acknowledged`/`store_consumed` false, due at `action_next_at`. A claim moves
/// `action_next_at` to the end of a lease by a conditional update, so one process acts; a failure
/// backs off and is shown by `souk purchases list`; a restart loses nothing (it is all in the row).
extension PurchaseStore {
    /// How long a claimed action is left to its worker.
    public static let actionLease: TimeInterval = 120

    /// Claims up to `limit` due actions, oldest due first.
    public func claimStoreActions(limit: Int) async throws -> [StoreAction] {
        let at = now()
        let rows = try await database.sql.raw("""
            SELECT id, app, store, store_product_id, product_type, store_reference, store_acknowledged, store_consumed,
            action_attempts, action_next_at, purchase_date FROM purchases
            WHERE action_next_at <= \(bind: at) AND status = \(bind: PurchaseStatus.granted.rawValue)
            AND (store_acknowledged = \(bind: false) OR store_consumed = \(bind: false))
            ORDER BY action_next_at LIMIT \(bind: limit)
            """).all()
        var claimed: [StoreAction] = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self)
            let attempts = (try row.decode(column: "action_attempts", as: Int?.self) ?? 0) + 1
            // Still due in the database: a claim by another process has moved it past `at`.
            guard try await database.sql.raw("""
                UPDATE purchases SET action_next_at = \(bind: at.addingTimeInterval(Self.actionLease)), action_attempts = \(bind: attempts)
                WHERE id = \(bind: id) AND action_next_at <= \(bind: at) RETURNING id
                """).first() != nil else { continue }
            guard let store = CommerceStore(rawValue: try row.decode(column: "store", as: String.self)),
                  let type = ProductType(rawValue: try row.decode(column: "product_type", as: String.self)),
                  let reference = try row.decode(column: "store_reference", as: String?.self) else {
                try await finishStoreAction(id, error: "the purchase has no store reference to act with")
                continue
            }
            let consume = try row.decode(column: "store_consumed", as: Bool?.self) == false
            claimed.append(StoreAction(paymentId: id, app: try row.decode(column: "app", as: String.self), store: store,
                                       kind: consume ? .consume : .acknowledge,
                                       storeProductId: try row.decode(column: "store_product_id", as: String.self), productType: type,
                                       storeReference: reference, attempts: attempts,
                                       purchaseDate: try row.decode(column: "purchase_date", as: Date?.self)))
        }
        return claimed
    }

    /// The store took the action: nothing is owed any more (a consumption acknowledges too).
    public func completeStoreAction(_ action: StoreAction) async throws {
        var update = database.sql.update("purchases").set("store_acknowledged", to: true).set("action_next_at", to: SQLLiteral.null)
            .set("action_error", to: SQLLiteral.null)
        if action.kind == .consume { update = update.set("store_consumed", to: true) }
        try await update.where("id", .equal, action.paymentId).run()
    }

    /// The action failed: tried again at `retryAt`, or given up (`retryAt` nil) with the reason shown.
    public func failStoreAction(_ action: StoreAction, error: String, retryAt: Date?) async throws {
        try await database.sql.update("purchases").set("action_next_at", to: SQLBind(retryAt))
            .set("action_error", to: String(error.prefix(1000))).where("id", .equal, action.paymentId).run()
    }

    func finishStoreAction(_ id: UUID, error: String) async throws {
        try await database.sql.update("purchases").set("action_next_at", to: SQLLiteral.null).set("action_error", to: error)
            .where("id", .equal, id).run()
    }
}
