import FluentKit
import SQLKit

/// Issue 12: webhook endpoints and deliveries. (Placeholder registered by the lead; helper H5 fills it in.)
struct CreateWebhooks: AsyncMigration {
    func prepare(on database: any Database) async throws {}

    func revert(on database: any Database) async throws {}
}
