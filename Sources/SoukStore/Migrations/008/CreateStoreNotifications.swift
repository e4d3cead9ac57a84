import FluentKit
import SQLKit

/// Issue 12: received store notifications (Apple V2, Google RTDN) and their processing queue. (Placeholder registered by the lead; helper H8 fills it in.)
struct CreateStoreNotifications: AsyncMigration {
    func prepare(on database: any Database) async throws {}

    func revert(on database: any Database) async throws {}
}
