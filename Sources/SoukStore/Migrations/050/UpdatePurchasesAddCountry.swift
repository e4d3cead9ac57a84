import FluentKit

/// Where a store transaction was bought, as its store's verified answer states it (docs/metrics.md,
/// "Filters"): `country`, ISO 3166-1 alpha-2 (`US`) — Apple's signed `storefront` (alpha-3, `USA`)
/// is kept in the same form. NULL where the store does not say (Amazon, Roku) and for purchases
/// recorded before this column: their metrics count everywhere but in a country's numbers.
struct UpdatePurchasesAddCountry: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("purchases").field("country", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("purchases").deleteField("country").update()
    }
}
