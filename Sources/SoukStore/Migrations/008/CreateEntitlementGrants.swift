import FluentKit
import SQLKit

/// Promotional grants (`souk entitlements grant`): an operator opens one
/// entitlement for one account in one app, from `starts_at` until `expires_at` (NULL: for good),
/// or until `revoked_at`. The entitlement engine reads them with the account's purchases
/// (`PurchaseStore.grantedRecords`), so `(account_id, app)` is indexed like `purchases`.
struct CreateEntitlementGrants: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("entitlement_grants")
            .id()
            .field("app", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("entitlement_id", .string, .required)
            // The account's environment when granted: Sandbox for sandbox accounts, so a grant never
            // mixes with the other environment's purchases.
            .field("environment", .string, .required)
            .field("starts_at", .datetime, .required)
            .field("expires_at", .datetime)
            .field("revoked_at", .datetime)
            // Why it was granted (the operator's words; shown by `souk entitlements grants`).
            .field("reason", .string)
            .field("created_at", .datetime, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX entitlement_grants_account_app ON entitlement_grants (account_id, app)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("DROP INDEX entitlement_grants_account_app").run()
        try await database.schema("entitlement_grants").delete()
    }
}
