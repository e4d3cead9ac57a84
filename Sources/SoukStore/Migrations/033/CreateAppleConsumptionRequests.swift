import FluentKit
import SQLKit

/// Apple's refund requests (CONSUMPTION_REQUEST) and Souk's answers (Send Consumption
/// Information, docs/stores.md). A request is recorded when its notification is processed and
/// answered by a worker within Apple's 12 hours (`deadline`), retried with back-off while Apple
/// cannot be reached; `UNIQUE(app, notification_id)` keeps a redelivered notification to one answer.
struct CreateAppleConsumptionRequests: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("apple_consumption_requests")
            .id()
            .field("app", .string, .required)
            // Apple's notificationUUID of the CONSUMPTION_REQUEST.
            .field("notification_id", .string, .required)
            .field("environment", .string, .required)
            .field("transaction_id", .string, .required)
            .field("original_transaction_id", .string)
            .field("product_id", .string)
            // consumptionRequestReason (UNINTENDED_PURCHASE, FULFILLMENT_ISSUE, …).
            .field("reason", .string)
            // When Apple signed the request, and the end of Apple's 12 hours.
            .field("requested_at", .datetime, .required)
            .field("deadline", .datetime, .required)
            // pending, answered, not_answered, refused, expired.
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            // Due for the worker (or the end of its lease); NULL once settled.
            .field("next_attempt_at", .datetime)
            // The ConsumptionRequest sent (JSON), the endpoint (v2, v1) and Apple's reply.
            .field("answer", .string)
            .field("endpoint", .string)
            .field("reply", .string)
            .field("detail", .string)
            .field("answered_at", .datetime)
            .unique(on: "app", "notification_id")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX apple_consumption_requests_due ON apple_consumption_requests (status, next_attempt_at)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX apple_consumption_requests_due").run()
        try await database.schema("apple_consumption_requests").delete()
    }
}
