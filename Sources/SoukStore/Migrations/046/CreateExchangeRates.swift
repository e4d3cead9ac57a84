import FluentKit

/// The operator's exchange rates for metrics (docs/metrics.md, "Exchange rates"): units of
/// `currency` per US dollar in hundred-millionths, in force from `effective_from` (a UTC day,
/// `YYYY-MM-DD`, which sorts as text) until the currency's next rate. One rate per currency and day.
struct CreateExchangeRates: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("exchange_rates")
            .field("currency", .string, .required)
            .field("effective_from", .string, .required)
            .field("per_usd_scaled", .int64, .required)
            .field("set_by", .string, .required)
            .field("set_at", .datetime, .required)
            .unique(on: "currency", "effective_from")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("exchange_rates").delete()
    }
}
