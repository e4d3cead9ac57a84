import FluentKit
import SQLKit

/// Received store notifications (Apple V2, Google RTDN) and their processing queue.
///
/// The receiving route only stores a row (so it can answer the store at once); a worker processes
/// it later. `UNIQUE(app, store, notification_id)` is the deduplication: Apple's
/// `notificationUUID` and Pub/Sub's `messageId` are redelivered on retries, and a second copy must
/// never have a second effect. The raw body is kept so a row can be processed again after a fix.
struct CreateStoreNotifications: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("store_notifications")
            .id()
            .field("app", .string, .required)
            // apple_store, google_play.
            .field("store", .string, .required)
            // Apple notificationUUID, Pub/Sub messageId.
            .field("notification_id", .string, .required)
            .field("type", .string, .required)
            .field("subtype", .string)
            .field("environment", .string)
            // When the store signed (Apple) or published (Google) it: the processing order.
            .field("signed_date", .datetime, .required)
            .field("payload", .string, .required)
            // queued, processed, ignored, unmatched, failed.
            .field("status", .string, .required)
            .field("summary", .string)
            .field("attempts", .int, .required)
            // When the next attempt is due; while a worker processes it, the end of its lease.
            .field("next_attempt_at", .datetime, .required)
            .field("last_error", .string)
            .field("received_at", .datetime, .required)
            .field("processed_at", .datetime)
            .unique(on: "app", "store", "notification_id")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX store_notifications_due ON store_notifications (status, next_attempt_at)").run()
        try await sql.raw("CREATE INDEX store_notifications_app ON store_notifications (app, received_at)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX store_notifications_app").run()
        try await sql.raw("DROP INDEX store_notifications_due").run()
        try await database.schema("store_notifications").delete()
    }
}
