import FluentKit
import SQLKit

/// The developer's webhook endpoints and one delivery row per (event, endpoint).
///
/// `commerce_events` is the outbox: a delivery row exists once the worker has queued the event for
/// an endpoint, and `UNIQUE(event_id, endpoint_id)` keeps several processes from queueing (and so
/// delivering) it twice. The secret is kept as given: it must be in clear to sign, and Souk has no
/// at-rest encryption facility for database columns (signing keys live in files) — protect the
/// database as the secrets it holds deserve.
struct CreateWebhooks: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("webhook_endpoints")
            .id()
            .field("app", .string, .required)
            .field("url", .string, .required)
            .field("secret", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "app", "url")
            .create()
        try await database.schema("webhook_deliveries")
            .field("event_id", .uuid, .required, .references("commerce_events", "id", onDelete: .cascade))
            .field("endpoint_id", .uuid, .required, .references("webhook_endpoints", "id", onDelete: .cascade))
            .field("app", .string, .required)
            // pending, delivered, failed.
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            // When the next attempt is due; while a worker posts, the end of its lease.
            .field("next_attempt_at", .datetime, .required)
            // Retries stop `WebhookStore.retryWindow` after this (the event's creation; a redelivery's time).
            .field("window_start", .datetime, .required)
            .field("last_status", .int)
            .field("last_error", .string)
            .field("delivered_at", .datetime)
            .field("created_at", .datetime, .required)
            .unique(on: "event_id", "endpoint_id")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)").run()
        try await sql.raw("CREATE INDEX webhook_deliveries_app ON webhook_deliveries (app, created_at)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX webhook_deliveries_app").run()
        try await sql.raw("DROP INDEX webhook_deliveries_due").run()
        try await database.schema("webhook_deliveries").delete()
        try await database.schema("webhook_endpoints").delete()
    }
}
