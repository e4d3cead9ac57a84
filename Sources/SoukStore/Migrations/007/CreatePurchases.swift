import FluentKit
import SQLKit

/// The purchase path: every purchase an app reported (`purchases`, one row per
/// payment id), the CloudEvents that reported them (`purchase_events`), moves of a store transaction
/// between accounts (`purchase_transfers`), consumable balances, and `commerce_changes`: one row per
/// write that changed a person's purchases or balances, so that every process's entitlement index
/// sees it. Idempotency lives in the unique constraints: a store transaction is recorded once per
/// app and store, a CloudEvent once per app and source.
///
/// `commerce_revision` (one row) numbers the changes: a writer bumps it in its transaction, so on
/// PostgreSQL the row's lock orders the writers and "every change after revision N" is complete
/// once revision M is visible (as `catalog_revision` does for the app catalog).
struct CreatePurchases: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("purchases")
            .id()
            .field("app", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("store", .string, .required)
            // pending | granted | refused
            .field("status", .string, .required)
            .field("environment", .string)
            .field("product_id", .string, .required)
            .field("store_product_id", .string, .required)
            .field("claimed_transaction_id", .string, .required)
            .field("user_id", .string)
            // Kept only while pending, for the retry; never logged.
            .field("receipt", .string)
            .field("transaction_id", .string)
            .field("original_transaction_id", .string)
            .field("product_type", .string, .required)
            .field("purchase_date", .datetime)
            .field("original_purchase_date", .datetime)
            .field("expires_date", .datetime)
            .field("revoked_at", .datetime)
            .field("revocation_reason", .string)
            .field("quantity", .int, .required)
            .field("ownership_type", .string)
            .field("signed_date", .datetime)
            .field("refusal_code", .string)
            .field("refusal_detail", .string)
            // The pending retry: attempts so far, when the next may start (a lease while one runs).
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime)
            .field("last_error", .string)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "app", "store", "transaction_id")
            .create()
        try await database.schema("purchase_events")
            .id()
            .field("app", .string, .required)
            .field("source", .string, .required)
            .field("event_id", .string, .required)
            .field("payment_id", .uuid, .required, .references("purchases", "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "app", "source", "event_id")
            .create()
        try await database.schema("purchase_transfers")
            .id()
            .field("app", .string, .required)
            .field("store", .string, .required)
            .field("original_transaction_id", .string, .required)
            .field("from_account_id", .uuid, .required)
            .field("to_account_id", .uuid, .required)
            .field("transferred_at", .datetime, .required)
            .create()
        try await database.schema("consumable_balances")
            .id()
            .field("app", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("product_id", .string, .required)
            .field("environment", .string, .required)
            .field("balance", .int64, .required)
            .unique(on: "app", "account_id", "product_id", "environment")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE TABLE commerce_revision (id INTEGER PRIMARY KEY, value BIGINT NOT NULL)").run()
        try await sql.raw("INSERT INTO commerce_revision (id, value) VALUES (1, 0)").run()
        try await database.schema("commerce_changes")
            .field("revision", .int64, .identifier(auto: false))
            .field("account_id", .uuid, .required)
            .field("app", .string, .required)
            .field("changed_at", .datetime, .required)
            .create()
        for (name, table, columns) in Self.indexes {
            try await sql.raw("CREATE INDEX \(unsafeRaw: name) ON \(unsafeRaw: table) (\(unsafeRaw: columns))").run()
        }
    }

    static let indexes: [(name: String, table: String, columns: String)] = [
        ("purchases_account_app", "purchases", "account_id, app"),
        ("purchases_original_transaction", "purchases", "app, store, original_transaction_id"),
        ("purchases_pending", "purchases", "status, next_attempt_at"),
        ("purchase_transfers_original", "purchase_transfers", "app, store, original_transaction_id"),
    ]

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in Self.indexes.reversed() {
            try await sql.raw("DROP INDEX \(unsafeRaw: index.name)").run()
        }
        try await database.schema("commerce_changes").delete()
        try await sql.raw("DROP TABLE commerce_revision").run()
        try await database.schema("consumable_balances").delete()
        try await database.schema("purchase_transfers").delete()
        try await database.schema("purchase_events").delete()
        try await database.schema("purchases").delete()
    }
}
