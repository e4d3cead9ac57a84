import FluentKit
import SQLKit

/// The audit log — who changed what, when, with the state before and after (JSON text),
/// written by the operator console and the `souk` commands that change people and grants.
struct CreateAuditLog: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("audit_log")
            .id()
            .field("at", .datetime, .required)
            .field("actor", .string, .required)
            .field("action", .string, .required)
            .field("target", .string, .required)
            .field("before", .string)
            .field("after", .string)
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.create(index: "audit_log_at").on("audit_log").column("at").run()
        }
    }

    func revert(on database: any Database) async throws {
        try await database.schema("audit_log").delete()
    }
}
