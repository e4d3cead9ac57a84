import FluentKit
import SQLKit

/// The install ledger keeps one row per account, app and device (`client_id`), with the download
/// type that device's install was first given: duplicates from earlier versions are folded into
/// the oldest row, unknown devices become `''` so the unique index covers them, and the index
/// serves every ledger lookup (`account_id, apple_item_id` is its prefix).
struct UpdateInstallOnePerDevice: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("installs").field("download_type", .string).update()
        let sql = database as! any SQLDatabase
        try await sql.raw("UPDATE installs SET client_id = '' WHERE client_id IS NULL").run()
        try await sql.raw("""
            DELETE FROM installs WHERE id NOT IN (
              SELECT id FROM (
                SELECT id, ROW_NUMBER() OVER (PARTITION BY account_id, apple_item_id, client_id ORDER BY created_at, id) AS n
                FROM installs) ranked
              WHERE n = 1)
            """).run()
        try await sql.raw("UPDATE installs SET download_type = 'redownload' WHERE download_type IS NULL").run()
        try await sql.raw("CREATE UNIQUE INDEX installs_account_app_device ON installs (account_id, apple_item_id, client_id)").run()
    }

    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).raw("DROP INDEX installs_account_app_device").run()
        try await database.schema("installs").deleteField("download_type").update()
    }
}
