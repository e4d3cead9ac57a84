import FluentKit
import SQLKit

/// Renewal-date extensions an operator asked Apple for (Extend a Subscription Renewal Date, one
/// subscription or every eligible subscriber of a product; docs/stores.md). A mass extension is
/// `pending` until the worker reads Apple's status as complete, then the entitlements of the
/// affected purchases move; `request_identifier` is Souk's id of the request at Apple.
struct CreateAppleRenewalExtensions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("apple_renewal_extensions")
            .id()
            .field("app", .string, .required)
            .field("request_identifier", .string, .required)
            // single, mass.
            .field("kind", .string, .required)
            .field("environment", .string, .required)
            .field("product_id", .string)
            .field("original_transaction_id", .string)
            .field("extend_by_days", .int, .required)
            .field("reason_code", .int, .required)
            .field("storefronts", .string)
            // pending, complete, refused, failed.
            .field("status", .string, .required)
            .field("requested_by", .string, .required)
            .field("requested_at", .datetime, .required)
            .field("next_check_at", .datetime)
            .field("attempts", .int, .required)
            .field("succeeded_count", .int64)
            .field("failed_count", .int64)
            .field("moved_count", .int)
            .field("detail", .string)
            .field("completed_at", .datetime)
            .unique(on: "request_identifier")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX apple_renewal_extensions_due ON apple_renewal_extensions (status, next_check_at)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX apple_renewal_extensions_due").run()
        try await database.schema("apple_renewal_extensions").delete()
    }
}
