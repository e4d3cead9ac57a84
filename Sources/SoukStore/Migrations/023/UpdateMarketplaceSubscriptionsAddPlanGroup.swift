import FluentKit
import SQLKit
import SoukCore

/// The plan group of each membership plan subscription (`plan_group`): the `group` of its product in
/// the marketplace catalog, so that one account holds at most one live plan per group (026's index).
/// Existing rows take their product's group from the catalog as it is now (retired products
/// included), else their product id.
struct UpdateMarketplaceSubscriptionsAddPlanGroup: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace_subscriptions").field("plan_group", .string).update()
        let sql = database as! any SQLDatabase
        try await sql.raw("UPDATE marketplace_subscriptions SET plan_group = product_id").run()
        // A catalog that cannot be read leaves every plan in a group of its own: never a failed start-up.
        guard let state = try? await CommerceCatalogStore.state(app: AppPricing.marketplaceApp, on: database) else { return }
        for product in state.catalog.products + state.retired {
            guard let group = product.group, group != product.id else { continue }
            try await sql.raw("UPDATE marketplace_subscriptions SET plan_group = \(bind: group) WHERE product_id = \(bind: product.id)").run()
        }
    }

    func revert(on database: any Database) async throws {
        try await database.schema("marketplace_subscriptions").deleteField("plan_group").update()
    }
}
