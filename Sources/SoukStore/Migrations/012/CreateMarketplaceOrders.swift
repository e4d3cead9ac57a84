import FluentKit
import SQLKit

/// The marketplace's own sales. One row per checkout: what is bought (an app by
/// its AppleItemID), by whom, for how much (integer minor units), through which processor, and
/// where it stands (`open` → `paid` → `refunded`, or `failed` / `cancelled`). At most one open
/// order per account and app (a partial unique index): asking to buy again while one is open
/// answers that order. A paid, unrefunded order is what makes an account own the app.
struct CreateMarketplaceOrders: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace_orders")
            .id()
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("apple_item_id", .int64, .required)
            .field("currency", .string, .required)
            .field("amount", .int64, .required)
            // Production, or Sandbox for sandbox accounts (never mixed).
            .field("environment", .string, .required)
            // development | stripe
            .field("processor", .string, .required)
            // The processor's reference (Stripe's Checkout Session id), once it has one.
            .field("processor_ref", .string)
            // The payment behind it (Stripe's PaymentIntent id), which refunds name.
            .field("payment_ref", .string)
            // Sent as Stripe's Idempotency-Key: a retried creation is the same session.
            .field("idempotency_key", .string, .required)
            .field("status", .string, .required)
            // Where the buyer pays.
            .field("url", .string)
            // What the processor charged (Stripe's amount_total), once paid; a refund's amount.
            .field("amount_paid", .int64)
            .field("amount_refunded", .int64)
            .field("created_at", .datetime, .required)
            .field("paid_at", .datetime)
            .field("refunded_at", .datetime)
            .field("updated_at", .datetime, .required)
            .unique(on: "processor", "processor_ref")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE UNIQUE INDEX marketplace_orders_one_open ON marketplace_orders (account_id, apple_item_id) WHERE status = 'open'").run()
        try await sql.raw("CREATE INDEX marketplace_orders_account ON marketplace_orders (account_id, apple_item_id, status)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX marketplace_orders_account").run()
        try await sql.raw("DROP INDEX marketplace_orders_one_open").run()
        try await database.schema("marketplace_orders").delete()
    }
}
