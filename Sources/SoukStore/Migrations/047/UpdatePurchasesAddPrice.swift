import FluentKit

/// What the customer paid for a store transaction, as the store's verified answer states it
/// (docs/metrics.md): `price_milliunits` in milli-units of `currency` (Apple's signed `price`,
/// Google's recurring price for a period at the base price, Roku's `amount`). NULL where the store
/// does not say (Amazon, Google's trials and introductory phases) and for purchases recorded before
/// this column: metrics name those as "price unknown", never as zero.
struct UpdatePurchasesAddPrice: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column a statement: SQLite's ALTER TABLE adds one at a time.
        try await database.schema("purchases").field("price_milliunits", .int64).update()
        try await database.schema("purchases").field("currency", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("purchases").deleteField("currency").update()
        try await database.schema("purchases").deleteField("price_milliunits").update()
    }
}
