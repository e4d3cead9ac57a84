import FluentKit
import SQLKit

/// What Stripe charged (and refunded) for a membership plan, invoice by invoice, so receipts say
/// the amounts as charged and a refund finds its subscription (`charge.refunded` names the invoice).
/// One row per invoice and kind (`UNIQUE`), so a replayed event records nothing twice.
struct CreateMarketplaceSubscriptionCharges: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace_subscription_charges")
            .id()
            .field("subscription_id", .uuid, .required, .references("marketplace_subscriptions", "id", onDelete: .cascade))
            .field("invoice", .string, .required)
            // purchase | renewal | refund
            .field("kind", .string, .required)
            .field("amount", .int64, .required)
            .field("currency", .string, .required)
            .field("charged_at", .datetime, .required)
            .unique(on: "invoice", "kind")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("marketplace_subscription_charges").delete()
    }
}
