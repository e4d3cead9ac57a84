import FluentKit
import SQLKit

/// The raw exports read an app's purchases and its marketplace sales in the order they were
/// recorded, a range of days at a time (docs/metrics.md, "Exports"); `commerce_events` has its
/// `(app, created_at)` index already.
struct AddExportIndexes: AsyncMigration {
    static let indexes: [(name: String, table: String, columns: String)] = [
        ("purchases_app_created", "purchases", "app, created_at"),
        ("marketplace_orders_item_paid", "marketplace_orders", "apple_item_id, paid_at"),
    ]

    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for (name, table, columns) in Self.indexes {
            try await sql.raw("CREATE INDEX \(unsafeRaw: name) ON \(unsafeRaw: table) (\(unsafeRaw: columns))").run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for (name, _, _) in Self.indexes.reversed() {
            try await sql.raw("DROP INDEX \(unsafeRaw: name)").run()
        }
    }
}
