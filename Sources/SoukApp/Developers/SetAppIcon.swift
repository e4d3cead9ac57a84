import Foundation
import SoukCore
import SoukStore

/// Sets the icon served at `/apps/<id>/icon` (a PNG file on disk, at most 2 MiB) for an actor that
/// reaches the app (`souk apps set-icon`, `souk apps create --icon`); writes `app.media` to the
/// audit log. The storefront's own icon and screenshots are `SaveAppMedia`.
package struct SetAppIcon: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    @discardableResult
    package func callAsFunction(actor: SoukActor, appleItemId: UInt64, pngAt path: String) async throws -> AppRecord {
        let app = try await services.ownership.app(appleItemId, for: actor, scope: .packagesWrite)
        let after: AppRecord
        do {
            after = try await services.catalog.setIcon(appleItemId: appleItemId, pngAt: path, blobs: services.blobs)
        } catch let error as CatalogError {
            throw DeveloperOperationError.invalid(field: "icon", "Not saved: \(error.description).")
        }
        try await services.audit.record(actor: actor.auditName, action: .appMedia, target: "app:\(appleItemId)",
                                        before: ["icon": app.iconSHA256 ?? ""], after: ["icon": after.iconSHA256 ?? ""])
        return after
    }
}
