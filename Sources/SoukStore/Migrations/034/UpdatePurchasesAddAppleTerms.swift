import FluentKit

/// What Apple states about a purchase beyond its lifecycle (docs/stores.md): how much a refund
/// took back (`refund_type` REFUND_FULL, REFUND_PRORATED, FAMILY_REVOKE; `refund_share` in
/// milliunits of a percent; `refunded_amount` in milli-units of the purchase's currency — a
/// prorated refund leaves access as it was), and how a subscription is billed
/// (`billing_plan_type` BILLED_UPFRONT or MONTHLY, `commitment_info` as Apple's JSON).
struct UpdatePurchasesAddAppleTerms: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        try await database.schema("purchases").field("refund_type", .string).update()
        try await database.schema("purchases").field("refund_share", .int).update()
        try await database.schema("purchases").field("refunded_amount", .int64).update()
        try await database.schema("purchases").field("billing_plan_type", .string).update()
        try await database.schema("purchases").field("commitment_info", .string).update()
    }

    func revert(on database: any Database) async throws {
        for column in ["commitment_info", "billing_plan_type", "refunded_amount", "refund_share", "refund_type"] {
            try await database.schema("purchases").deleteField(.string(column)).update()
        }
    }
}
