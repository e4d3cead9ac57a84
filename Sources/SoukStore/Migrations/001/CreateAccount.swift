import FluentKit

struct CreateAccount: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("accounts")
            .id()
            .field("email", .string, .required)
            .field("password_hash", .string, .required)
            .field("disabled", .bool, .required)
            .field("created_at", .datetime)
            .unique(on: "email")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("accounts").delete()
    }
}
