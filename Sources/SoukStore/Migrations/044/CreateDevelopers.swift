import FluentKit
import SQLKit

/// Developer organisations (docs/developers.md): `developers`, their members (an account belongs to
/// at most one organisation), their API keys (only the SHA-256 of a key is kept), which organisation
/// owns a marketplace app (`apps.developer_id`) and an in-app catalog (`commerce_apps.developer_id`),
/// and a version's review state (`app_versions.review_state`: `released`, `in_review`, `rejected`;
/// every version that exists now is released).
struct CreateDevelopers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("developers")
            .field("id", .string, .identifier(auto: false))
            .field("name", .string, .required)
            .field("commission_percent", .int)
            .field("created_at", .datetime, .required)
            .create()
        try await database.schema("developer_members")
            .id()
            .field("developer_id", .string, .required, .references("developers", "id", onDelete: .cascade))
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("role", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "account_id")
            .create()
        try await database.schema("developer_api_keys")
            .id()
            .field("developer_id", .string, .required, .references("developers", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("scopes", .string, .required)
            .field("token_hash", .string, .required)
            .field("hint", .string, .required)
            .field("created_by", .string, .required)
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime)
            .field("revoked_at", .datetime)
            .unique(on: "token_hash")
            .create()
        // One column a statement: SQLite's ALTER TABLE adds one at a time.
        try await database.schema("apps").field("developer_id", .string).update()
        try await database.schema("commerce_apps").field("developer_id", .string).update()
        try await database.schema("app_versions")
            .field("review_state", .string, .required, .sql(.default("released"))).update()
        try await database.schema("app_versions").field("review_reason", .string).update()
        try await database.schema("app_versions").field("reviewed_at", .datetime).update()
        try await database.schema("app_versions").field("reviewed_by", .string).update()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX developer_members_developer ON developer_members (developer_id)").run()
        try await sql.raw("CREATE INDEX developer_api_keys_developer ON developer_api_keys (developer_id)").run()
        try await sql.raw("CREATE INDEX apps_developer ON apps (developer_id)").run()
        try await sql.raw("CREATE INDEX commerce_apps_developer ON commerce_apps (developer_id)").run()
        try await sql.raw("CREATE INDEX app_versions_in_review ON app_versions (review_state)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in ["app_versions_in_review", "commerce_apps_developer", "apps_developer"] {
            try await sql.raw("DROP INDEX \(unsafeRaw: index)").run()
        }
        for column in ["reviewed_by", "reviewed_at", "review_reason", "review_state"] {
            try await database.schema("app_versions").deleteField(.string(column)).update()
        }
        try await database.schema("commerce_apps").deleteField("developer_id").update()
        try await database.schema("apps").deleteField("developer_id").update()
        try await database.schema("developer_api_keys").delete()
        try await database.schema("developer_members").delete()
        try await database.schema("developers").delete()
    }
}
