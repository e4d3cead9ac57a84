import Foundation
import SoukCore
import SoukStore

/// Replaces an app's icon and/or screenshots (PNG files already on disk, as an upload left them)
/// for an actor that reaches the app (both consoles); writes `app.media` to the audit log.
package struct SaveAppMedia: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    /// An uploaded image: where it is, and the name the person gave it (for messages only).
    package struct Image: Sendable {
        package var path: String
        package var name: String

        package init(path: String, name: String) {
            self.path = path
            self.name = name
        }
    }

    @discardableResult
    package func callAsFunction(actor: SoukActor, appleItemId: UInt64, icon: Image?, screenshots: [AppMedia.Family: [Image]]) async throws -> AppRecord {
        let app = try await services.ownership.app(appleItemId, for: actor, scope: .packagesWrite)
        func read(_ image: Image) throws -> Data {
            let size = (try? FileManager.default.attributesOfItem(atPath: image.path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= PNG.maxFileBytes else {
                throw DeveloperOperationError.invalid(field: "media", "Not saved: \(image.name) is larger than \(PNG.maxFileBytes >> 20) MiB.")
            }
            return try Data(contentsOf: URL(fileURLWithPath: image.path))
        }
        let iconData = try icon.map(read)
        let shots = try screenshots.filter { !$0.value.isEmpty }.mapValues { try $0.map(read) }
        guard iconData != nil || !shots.isEmpty else { throw DeveloperOperationError.invalid(field: "media", "Choose an icon or screenshots to upload.") }
        let after: AppRecord
        do {
            after = try await services.catalog.setMedia(appleItemId: appleItemId, icon: iconData, screenshots: shots, blobs: services.blobs)
        } catch let error as CatalogError {
            throw DeveloperOperationError.invalid(field: "media", "Not saved: \(error.description).")
        }
        try await services.audit.record(actor: actor.auditName, action: .appMedia, target: "app:\(appleItemId)",
                                        before: app.auditMediaFields, after: after.auditMediaFields)
        return after
    }
}
