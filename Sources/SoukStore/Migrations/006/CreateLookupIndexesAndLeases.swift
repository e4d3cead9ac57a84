import FluentKit
import SQLKit

/// Indexes for the lookups and sweeps that scanned whole tables (seen with `EXPLAIN` on SQLite and
/// PostgreSQL), and `maintenance_leases`: which process runs a background job now, so that several
/// processes sharing PostgreSQL run each sweep once.
struct CreateLookupIndexesAndLeases: AsyncMigration {
    static let indexes: [(name: String, table: String, columns: String)] = [
        ("oauth_tokens_family", "oauth_tokens", "family_id"),
        ("oauth_tokens_account_client", "oauth_tokens", "account_id, client_id"),
        ("oauth_tokens_code", "oauth_tokens", "code_id"),
        ("oauth_tokens_expiry", "oauth_tokens", "expires_at"),
        ("oauth_codes_expiry", "oauth_codes", "expires_at"),
        ("install_grants_expiry", "install_grants", "expires_at"),
        ("web_sessions_account", "web_sessions", "account_id"),
        ("web_sessions_expiry", "web_sessions", "expires_at"),
    ]

    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in Self.indexes {
            try await sql.raw("CREATE INDEX \(unsafeRaw: index.name) ON \(unsafeRaw: index.table) (\(unsafeRaw: index.columns))").run()
        }
        try await database.schema("maintenance_leases")
            .field("name", .string, .identifier(auto: false))
            .field("holder", .string, .required)
            .field("lease_until", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("maintenance_leases").delete()
        let sql = database as! any SQLDatabase
        for index in Self.indexes.reversed() {
            try await sql.raw("DROP INDEX \(unsafeRaw: index.name)").run()
        }
    }
}
