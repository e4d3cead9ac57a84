import FluentKit
import SQLKit

/// The PaymentIntent that paid a plan's invoice. Since Stripe's API version 2025-03-31
/// (basil) a charge no longer names its invoice, so `charge.refunded` finds the plan's invoice by
/// the PaymentIntent it was paid with.
struct UpdateMarketplaceSubscriptionChargesAddPaymentRef: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace_subscription_charges").field("payment_ref", .string).update()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("CREATE INDEX marketplace_subscription_charges_payment ON marketplace_subscription_charges (payment_ref)").run()
    }

    func revert(on database: any Database) async throws {
        if let sql = database as? any SQLDatabase {
            try await sql.raw("DROP INDEX marketplace_subscription_charges_payment").run()
        }
        try await database.schema("marketplace_subscription_charges").deleteField("payment_ref").update()
    }
}
