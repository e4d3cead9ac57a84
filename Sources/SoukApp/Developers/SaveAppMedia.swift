import Foundation
import SoukCore
import SoukStore

/// Replaces an app's icon and/or screenshots (PNG files already on disk, as an upload left them)
/// for an actor that reaches the app; writes `app.media` to the audit log.
package struct SaveAppMedia: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    @discardableResult
    package func callAsFunction(actor: SoukActor, appleItemId: UInt64, icon: String?, screenshots: [AppMedia.Family: [String]]) async throws -> AppRecord {
        let app = try await services.ownership.app(appleItemId, for: actor, scope: .packagesWrite)
        func read(_ path: String) throws -> Data {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= PNG.maxFileBytes else { throw DeveloperOperationError.invalid(field: "media", "An image is larger than \(PNG.maxFileBytes >> 20) MiB.") }
            return try Data(contentsOf: URL(fileURLWithPath: path))
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
