import FluentKit
import SQLKit

/// A step that shipped empty (the store-action queue went into `purchases` with
/// `UpdatePurchasesAddLifecycle`, the store settings into 009's `AddStoreSettings`). Kept so that
/// databases that recorded it stay in step.
struct CreateStoreOperations: AsyncMigration {
    func prepare(on database: any Database) async throws {}

    func revert(on database: any Database) async throws {}
}
