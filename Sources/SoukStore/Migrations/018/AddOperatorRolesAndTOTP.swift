import FluentKit

/// The operator console's people. An account's `role` (customer, support, operator), its
/// TOTP second factor (the secret sealed with AES-GCM, whether it is on, the last time step used so
/// a code is taken once), its one-time recovery codes (SHA-256 only), and on a web session the
/// moment its second factor was given.
struct AddOperatorRolesAndTOTP: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("accounts").field("role", .string, .required, .sql(.default("customer"))).update()
        try await database.schema("accounts").field("totp_secret", .string).update()
        try await database.schema("accounts").field("totp_enabled", .bool, .required, .sql(.default(false))).update()
        try await database.schema("accounts").field("totp_last_step", .int64).update()
        try await database.schema("web_sessions").field("second_factor_at", .datetime).update()
        try await database.schema("totp_recovery_codes")
            .id()
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("code_hash", .string, .required)
            .field("used_at", .datetime)
            .unique(on: "account_id", "code_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("totp_recovery_codes").delete()
        try await database.schema("web_sessions").deleteField("second_factor_at").update()
        for field in ["totp_last_step", "totp_enabled", "totp_secret", "role"] {
            try await database.schema("accounts").deleteField(.string(field)).update()
        }
    }
}
