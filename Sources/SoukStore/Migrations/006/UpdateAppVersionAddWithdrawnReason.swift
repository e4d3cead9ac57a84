import FluentKit

/// Why a version was withdrawn (`souk packages withdraw --reason`, or App Store Connect's event).
struct UpdateAppVersionAddWithdrawnReason: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("app_versions").field("withdrawn_reason", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("app_versions").deleteField("withdrawn_reason").update()
    }
}
