import Foundation
import SoukCore
import SoukStore

/// An organisation's API keys as its owners manage them: make one (its secret is returned once,
/// only its SHA-256 is kept), list them, revoke one. A member who is no owner is refused (403); a
/// key of another organisation is `notFound`. Each change writes its audit entry
/// (`developer.key-create`, `developer.key-revoke`), never the secret.
package struct DeveloperKeyOperations: Sendable {
    package let services: DeveloperServices

    package func list(actor: SoukActor) async throws -> [DeveloperAPIKey] {
        try await services.directory.keys(of: try DeveloperOwnership.managedOrganisation(of: actor))
    }

    package func create(actor: SoukActor, name: String, scopes: Set<DeveloperScope>) async throws -> (key: DeveloperAPIKey, secret: String) {
        let developerID = try DeveloperOwnership.managedOrganisation(of: actor)
        guard !scopes.isEmpty else { throw DeveloperOperationError.invalid(field: "scopes", "Choose at least one scope.") }
        let made: (key: DeveloperAPIKey, secret: String)
        do {
            made = try await services.directory.createKey(developer: developerID, name: name, scopes: scopes, createdBy: actor)
        } catch DeveloperDirectoryError.invalidKeyName {
            throw DeveloperOperationError.invalid(field: "name", "A key's name has 1 to 100 characters.")
        }
        try await services.audit.record(actor: actor.auditName, action: .developerKeyCreate, target: "developer:\(developerID)/key:\(Self.id(made.key.id))",
                                        after: ["name": made.key.name, "scopes": DeveloperScope.format(scopes), "hint": made.key.hint])
        return made
    }

    package func revoke(actor: SoukActor, keyID: UUID) async throws {
        let developerID = try DeveloperOwnership.managedOrganisation(of: actor)
        guard let key = try await services.directory.key(keyID), key.developerID == developerID else {
            throw DeveloperOperationError.notFound("No key of yours has this id.")
        }
        if try await services.directory.revokeKey(keyID, developer: developerID) {
            try await services.audit.record(actor: actor.auditName, action: .developerKeyRevoke, target: "developer:\(developerID)/key:\(Self.id(keyID))",
                                            before: ["name": key.name, "revoked": "false"], after: ["name": key.name, "revoked": "true"])
        }
    }

    package static func id(_ id: UUID) -> String { id.uuidString.lowercased() }
}
