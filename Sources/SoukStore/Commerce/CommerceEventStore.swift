import Foundation
import SQLKit
import SoukCore

/// The lifecycle events of people's purchases and grants (`commerce_events`): written in the
/// transaction of the change they record, read by `souk purchases events` and, as an outbox, by
/// the webhook deliveries (`WebhookStore`).
public struct CommerceEventStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// The columns `decode` reads; prefix each with `alias.` when the query joins other tables.
    static func columns(_ alias: String = "") -> String {
        ["id", "app", "account_id", "type", "source", "environment", "occurred_at", "created_at", "product_id", "entitlement_id", "store",
         "transaction_id", "original_transaction_id", "payment_id", "expires_at", "dedup_key"]
            .map { alias.isEmpty ? $0 : "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// Records `event` unless an event with its `(app, dedup_key)` exists; true when it was recorded.
    /// Call it inside the write transaction of the change it records.
    @discardableResult
    public static func record(_ event: CommerceEvent, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("""
            INSERT INTO commerce_events (\(unsafeRaw: columns()))
            VALUES (\(bind: event.id), \(bind: event.app), \(bind: event.accountId), \(bind: event.type.rawValue),
            \(bind: event.source.rawValue), \(bind: event.environment.rawValue), \(bind: event.occurredAt), \(bind: event.createdAt),
            \(bind: event.productId), \(bind: event.entitlementId), \(bind: event.store), \(bind: event.transactionId),
            \(bind: event.originalTransactionId), \(bind: event.paymentId), \(bind: event.expiresAt), \(bind: event.dedupKey))
            ON CONFLICT (app, dedup_key) DO NOTHING RETURNING id
            """).first() != nil
    }

    /// The account's latest `limit` events in the app, oldest first. Events of a type, source or
    /// environment this version does not know (a newer Souk wrote them) are left out.
    public func list(account: UUID, app: String, limit: Int) async throws -> [CommerceEvent] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns()) FROM commerce_events
            WHERE account_id = \(bind: account) AND app = \(bind: app) ORDER BY occurred_at DESC, created_at DESC LIMIT \(bind: limit)
            """).all().reversed().compactMap(Self.decode)
    }

    /// The account's latest `limit` events in every app, newest first (the console's timeline).
    public func recent(account: UUID, limit: Int) async throws -> [CommerceEvent] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns()) FROM commerce_events
            WHERE account_id = \(bind: account) ORDER BY occurred_at DESC, created_at DESC LIMIT \(bind: limit)
            """).all().compactMap(Self.decode)
    }

    /// One row of `columns()`; nil when its type, source or environment is unknown to this version.
    static func decode(_ row: any SQLRow) throws -> CommerceEvent? {
        guard let type = LifecycleEventType(rawValue: try row.decode(column: "type", as: String.self)),
              let source = LifecycleSource(rawValue: try row.decode(column: "source", as: String.self)),
              let environment = CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) else { return nil }
        return CommerceEvent(id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
                             accountId: try row.decode(column: "account_id", as: UUID.self), type: type, source: source,
                             environment: environment, occurredAt: try row.decode(column: "occurred_at", as: Date.self),
                             createdAt: try row.decode(column: "created_at", as: Date.self),
                             productId: try row.decode(column: "product_id", as: String?.self),
                             entitlementId: try row.decode(column: "entitlement_id", as: String?.self),
                             store: try row.decode(column: "store", as: String?.self),
                             transactionId: try row.decode(column: "transaction_id", as: String?.self),
                             originalTransactionId: try row.decode(column: "original_transaction_id", as: String?.self),
                             paymentId: try row.decode(column: "payment_id", as: UUID?.self),
                             expiresAt: try row.decode(column: "expires_at", as: Date?.self),
                             dedupKey: try row.decode(column: "dedup_key", as: String.self))
    }
}
