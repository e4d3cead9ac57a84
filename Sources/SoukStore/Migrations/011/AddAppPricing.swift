import FluentKit

/// What an app costs — its price list (`[{"currency", "amount"}]` in minor units,
/// the operator's order) and the marketplace entitlement that opens it (a membership). Both empty:
/// a free app. An update of `apps` moves the catalog revision (004's triggers), so every process's
/// catalog index sees a new price within its refresh interval.
struct AddAppPricing: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("apps").field("prices", .string).update()
        try await database.schema("apps").field("requires_entitlement", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("apps").deleteField("requires_entitlement").update()
        try await database.schema("apps").deleteField("prices").update()
    }
}
