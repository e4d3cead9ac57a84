import FluentKit
import SQLKit

/// Issue 12: promotional entitlement grants. (Placeholder registered by the lead; helper H7 fills it in.)
struct CreateEntitlementGrants: AsyncMigration {
    func prepare(on database: any Database) async throws {}

    func revert(on database: any Database) async throws {}
}
