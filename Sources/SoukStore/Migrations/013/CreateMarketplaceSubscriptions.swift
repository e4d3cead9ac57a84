import FluentKit
import SQLKit

/// Membership plans the marketplace sells itself (products of the catalog whose
/// `"app"` is `marketplace`), each a subscription: its period, when the current one ends, how many
/// times it renewed, whether it will renew, and its state (`active`, `billing_retry`,
/// `grace_period`, `expired`, `revoked`). The entitlement engine reads them with the account's
/// purchases of the `marketplace` catalog. `sandbox` ones renew on Apple's accelerated schedule
/// (`SandboxSchedule`) at most 12 times; `fail_next` makes the next renewal fail (`souk sandbox
/// fail-renewal`). `sandbox_clock` keeps how far `souk sandbox advance` moved sandbox time.
struct CreateMarketplaceSubscriptions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace_subscriptions")
            .id()
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("product_id", .string, .required)
            .field("environment", .string, .required)
            .field("processor", .string, .required)
            .field("currency", .string, .required)
            .field("amount", .int64, .required)
            // ISO 8601 period of the plan (P1M); a sandbox one lasts SandboxSchedule.compressed of it.
            .field("period", .string, .required)
            .field("sandbox", .bool, .required)
            .field("started_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("renewals", .int, .required)
            .field("will_renew", .bool, .required)
            .field("state", .string, .required)
            .field("fail_next", .string)
            .field("grace_expires_at", .datetime)
            .field("revoked_at", .datetime)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX marketplace_subscriptions_account ON marketplace_subscriptions (account_id)").run()
        try await sql.raw("CREATE INDEX marketplace_subscriptions_due ON marketplace_subscriptions (state, expires_at)").run()
        try await database.schema("sandbox_clock").field("id", .int, .identifier(auto: false)).field("offset_seconds", .int64, .required).create()
        try await sql.raw("INSERT INTO sandbox_clock (id, offset_seconds) VALUES (1, 0)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("sandbox_clock").delete()
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX marketplace_subscriptions_due").run()
        try await sql.raw("DROP INDEX marketplace_subscriptions_account").run()
        try await database.schema("marketplace_subscriptions").delete()
    }
}
