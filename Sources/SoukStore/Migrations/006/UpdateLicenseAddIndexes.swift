import FluentKit
import SQLKit

/// Indexes for the licensing queries (checked with `EXPLAIN QUERY PLAN` on SQLite and `EXPLAIN`
/// on PostgreSQL): an account's live devices (`liveDevices`, the device-limit check in `issue`, the
/// account page), a device's live license of one app version (idempotent `issue`, revocation by
/// device) and the expiry sweep (`Cleanup`).
struct UpdateLicenseAddIndexes: AsyncMigration {
    static let indexes: [(name: String, columns: String)] = [
        ("licenses_account", "account_id"),
        // `expires_at` last: SQLite (without ANALYZE statistics) then prefers this index to the
        // account's for the live-license lookup, which matters most for anonymous licenses.
        ("licenses_device_app_version", "device_id, apple_item_id, apple_version_id, expires_at"),
        ("licenses_expiry", "expires_at"),
    ]

    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in Self.indexes {
            try await sql.raw("CREATE INDEX \(unsafeRaw: index.name) ON licenses (\(unsafeRaw: index.columns))").run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in Self.indexes.reversed() {
            try await sql.raw("DROP INDEX \(unsafeRaw: index.name)").run()
        }
    }
}
