import FluentKit

/// The purchase option and offer a Google Play one-time product was bought through
/// (`purchases.productsv2`'s `productOfferDetails.purchaseOptionId` and `offerId`); NULL for other
/// stores and for purchases read through v1.
struct UpdatePurchasesAddGoogleOffer: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column a statement: SQLite's ALTER TABLE adds one at a time.
        try await database.schema("purchases").field("store_purchase_option_id", .string).update()
        try await database.schema("purchases").field("store_offer_id", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("purchases").deleteField("store_offer_id").update()
        try await database.schema("purchases").deleteField("store_purchase_option_id").update()
    }
}
