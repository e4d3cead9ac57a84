import FluentKit

struct CreateAppOverride: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("app_overrides")
            .id()
            .field("app_id", .uuid, .required, .references("apps", "id", onDelete: .cascade))
            .field("restore_url", .string)
            .field("updates_url", .string)
            .field("polling_interval_hours", .int)
            .field("dynamic_license_url", .string)
            .field("license_renewal_url", .string)
            .field("license_resolution_url", .string)
            .field("signing_certificate_url", .string)
            .field("encryption_certificate_url", .string)
            .field("updated_at", .datetime)
            .unique(on: "app_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("app_overrides").delete()
    }
}
