import FluentKit
import SQLKit

/// Issue 12: store settings per app (commerce_apps.stores), store status, the store-action queue (acknowledge, consume). (Placeholder registered by the lead; helper H6 fills it in.)
struct CreateStoreOperations: AsyncMigration {
    func prepare(on database: any Database) async throws {}

    func revert(on database: any Database) async throws {}
}
