import FluentKit
import SQLKit

/// Sandbox accounts (`souk accounts create --sandbox`): they see only purchases
/// made in the stores' sandbox environments, and present only those.
struct UpdateAccountAddSandbox: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("accounts")
            .field("sandbox", .bool, .required, .sql(.default(SQLLiteral.boolean(false))))
            .update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("accounts").deleteField("sandbox").update()
    }
}
