import Foundation
import SoukCore
import SoukStore

/// Adds a marketplace app, for the marketplace's operator side only (operator staff, the CLI, the
/// system): the console's "Add an app" form and `souk apps create` both call it. With `developer`,
/// the app belongs to that organisation (and shows its name unless another is given). Writes
/// `app.create`.
package struct CreateApp: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    /// - Throws: `DeveloperOperationError.notAllowed` for a developer or support actor, `.notFound`
    ///   for an organisation that does not exist; `CatalogError` for an app the catalog refuses (no
    ///   bundle id or name, the AppleItemID taken), nothing written.
    @discardableResult
    package func callAsFunction(_ app: NewApp, developer: String? = nil, actor: SoukActor) async throws -> AppRecord {
        guard actor.isMarketplaceOperator else {
            throw DeveloperOperationError.notAllowed("Only the marketplace's operators add apps.")
        }
        var app = app
        if let developer {
            guard let organisation = try await services.directory.find(developer) else {
                throw DeveloperOperationError.notFound("No developer organisation has id “\(developer)” (souk developers list shows them).")
            }
            app.developerID = organisation.id
            if app.developerName.isEmpty { app.developerName = organisation.name }
        }
        let created = try await services.catalog.createApp(app)
        try await services.audit.record(actor: actor, action: .appCreate, target: "app:\(created.appleItemId)",
                                        after: ["bundle_id": created.bundleId, "name": created.name, "developer": created.developerName,
                                                "access": created.access.rawValue, "developer_id": app.developerID ?? ""])
        return created
    }
}
