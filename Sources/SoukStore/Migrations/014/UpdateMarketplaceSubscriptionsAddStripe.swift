import FluentKit

/// Membership plans through Stripe: the Checkout Session that starts one
/// (`processor_ref`, `checkout_url`; `pending` until Stripe's webhook says it is paid — a pending
/// subscription opens nothing) and the Stripe Subscription whose invoices renew it.
struct UpdateMarketplaceSubscriptionsAddStripe: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace_subscriptions").field("processor_ref", .string).update()
        try await database.schema("marketplace_subscriptions").field("checkout_url", .string).update()
        try await database.schema("marketplace_subscriptions").field("stripe_subscription", .string).update()
        try await database.schema("marketplace_subscriptions").field("pending", .bool).update()
    }

    func revert(on database: any Database) async throws {
        for field in ["pending", "stripe_subscription", "checkout_url", "processor_ref"] {
            try await database.schema("marketplace_subscriptions").deleteField(.string(field)).update()
        }
    }
}
