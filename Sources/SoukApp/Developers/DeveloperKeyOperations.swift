import Foundation
import SoukCore
import SoukStore

/// An organisation's API keys as its owners manage them: make one (its secret is returned once,
/// only its SHA-256 is kept), list them, revoke one. A member who is no owner is refused (403); a
/// key of another organisation is `notFound`. Each change writes its audit entry
/// (`developer.key-create`, `developer.key-revoke`), never the secret.
package struct DeveloperKeyOperations: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    package func list(actor: SoukActor) async throws -> [DeveloperAPIKey] {
        try await services.directory.keys(of: try DeveloperOwnership.managedOrganisation(of: actor))
    }

    package func create(actor: SoukActor, name: String, scopes: Set<DeveloperScope>) async throws -> (key: DeveloperAPIKey, secret: String) {
        let developerID = try DeveloperOwnership.managedOrganisation(of: actor)
        do {
            return try await services.operations.createKey(actor: actor, developer: developerID, name: name, scopes: scopes)
        } catch DeveloperDirectoryError.invalidKeyName {
            throw DeveloperOperationError.invalid(field: "name", "A key's name has 1 to 100 characters.")
        }
    }

    /// Revokes one of the organisation's keys; a key revoked already stays so, with no second entry.
    package func revoke(actor: SoukActor, keyID: UUID) async throws {
        let developerID = try DeveloperOwnership.managedOrganisation(of: actor)
        guard let key = try await services.directory.key(keyID), key.developerID == developerID else {
            throw DeveloperOperationError.notFound("No key of yours has this id.")
        }
        guard key.revokedAt == nil else { return }
        try await services.operations.revokeKey(actor: actor, id: keyID)
    }

    package static func id(_ id: UUID) -> String { id.uuidString.lowercased() }
}
