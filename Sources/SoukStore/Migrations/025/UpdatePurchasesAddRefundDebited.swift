import FluentKit

/// How much of a consumable's balance its refund took back (`purchases.refund_debited`). The
/// balance never goes below zero, so a refund of what was partly used takes less than the
/// quantity; when the store takes the refund back (Apple `REFUND_REVERSED`), exactly that is
/// credited again. NULL: nothing was taken back by Souk (not refunded, recorded already refunded
/// and so never credited, or refunded before Souk counted it).
struct UpdatePurchasesAddRefundDebited: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("purchases").field("refund_debited", .int).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("purchases").deleteField("refund_debited").update()
    }
}
