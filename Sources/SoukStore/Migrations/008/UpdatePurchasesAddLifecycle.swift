import FluentKit
import SQLKit

/// Every store, every change: where each purchase stands in its store's lifecycle, what
/// asks the store about it again, when reconciliation should, and the lifecycle events
/// (`commerce_events`) that `souk purchases events` lists and the webhooks deliver.
///
/// Columns are added one statement each (SQLite adds one column per `ALTER TABLE`).
struct UpdatePurchasesAddLifecycle: AsyncMigration {
    static let columns: [(name: String, type: DatabaseSchema.DataType)] = [
        // SubscriptionState raw value; nil for one-time purchases and stores that say nothing more.
        ("subscription_state", .string),
        ("will_renew", .bool),
        ("grace_expires_at", .datetime),
        // PeriodType raw value.
        ("period_type", .string),
        // The store SKU the next period renews into.
        ("auto_renew_product_id", .string),
        // Google's purchase token (never logged); what re-reads the purchase at the store.
        ("store_reference", .string),
        ("linked_store_reference", .string),
        // Reconciliation: when to ask the store again (a lease while one process does), how often it
        // failed in a row, when it last answered.
        ("next_check_at", .datetime),
        ("check_attempts", .int),
        ("last_checked_at", .datetime),
        // What Souk still owes the store (Google): false → acknowledge (within 3 days) / consume;
        // true → done; nil → nothing to do. The store-action worker claims rows by
        // `action_next_at` (a lease while it works), counting `action_attempts`.
        ("store_acknowledged", .bool),
        ("store_consumed", .bool),
        ("action_attempts", .int),
        ("action_next_at", .datetime),
        ("action_error", .string),
    ]

    static let indexes: [(name: String, table: String, columns: String)] = [
        ("purchases_store_reference", "purchases", "app, store, store_reference"),
        ("purchases_next_check", "purchases", "next_check_at"),
        ("purchases_action_next", "purchases", "action_next_at"),
        ("commerce_events_app_created", "commerce_events", "app, created_at"),
        ("commerce_events_account_app", "commerce_events", "account_id, app, occurred_at"),
    ]

    func prepare(on database: any Database) async throws {
        for column in Self.columns {
            try await database.schema("purchases").field(.string(column.name), column.type).update()
        }
        try await database.schema("commerce_events")
            .id()
            .field("app", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("type", .string, .required)
            .field("source", .string, .required)
            .field("environment", .string, .required)
            .field("occurred_at", .datetime, .required)
            .field("created_at", .datetime, .required)
            .field("product_id", .string)
            .field("entitlement_id", .string)
            .field("store", .string)
            .field("transaction_id", .string)
            .field("original_transaction_id", .string)
            .field("payment_id", .uuid)
            .field("expires_at", .datetime)
            .field("dedup_key", .string, .required)
            .unique(on: "app", "dedup_key")
            .create()
        let sql = database as! any SQLDatabase
        for (name, table, columns) in Self.indexes {
            try await sql.raw("CREATE INDEX \(unsafeRaw: name) ON \(unsafeRaw: table) (\(unsafeRaw: columns))").run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in Self.indexes.reversed() {
            try await sql.raw("DROP INDEX \(unsafeRaw: index.name)").run()
        }
        try await database.schema("commerce_events").delete()
        for column in Self.columns.reversed() {
            try await database.schema("purchases").deleteField(.string(column.name)).update()
        }
    }
}
