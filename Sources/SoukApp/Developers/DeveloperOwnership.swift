import Foundation
import SoukCore
import SoukStore

/// The one place that decides what an actor reaches. A developer actor reaches only its own
/// organisation's apps and catalogs: anything else, another organisation's or the marketplace's
/// own, is `notFound`, exactly like an id that does not exist. Staff, the CLI and the system reach
/// everything; changing needs the operator's side (`SoukActor.isMarketplaceOperator`). A developer
/// key changes only what its scopes allow.
package struct DeveloperOwnership: Sendable {
    package let directory: DeveloperDirectory
    package let catalog: CatalogStore
    package let catalogs: CommerceCatalogStore

    package static let noApp = DeveloperOperationError.notFound("No app of yours has this AppleItemID.")
    package static let noCatalog = DeveloperOperationError.notFound("No in-app catalog of yours has this id.")

    /// The app `appleItemId` when `actor` reaches it (and, with `scope`, may change it).
    package func app(_ appleItemId: UInt64, for actor: SoukActor, changing scope: DeveloperScope? = nil) async throws -> AppModel {
        if let developerID = actor.developerID {
            guard try await directory.owner(appleItemId: appleItemId) == developerID else { throw Self.noApp }
        }
        let app: AppModel
        do {
            app = try await catalog.app(appleItemId: appleItemId)
        } catch CatalogError.notFound {
            throw Self.noApp
        }
        if let scope { try Self.requireChange(scope, by: actor) }
        return app
    }

    /// The in-app catalog of `app` when `actor` reaches it (and, with `scope`, may change it).
    package func catalog(_ app: String, for actor: SoukActor, changing scope: DeveloperScope? = nil) async throws -> CommerceCatalogState {
        if let developerID = actor.developerID {
            guard try await directory.owner(catalog: app) == developerID else { throw Self.noCatalog }
        }
        guard let state = try await catalogs.state(app: app) else { throw Self.noCatalog }
        if let scope { try Self.requireChange(scope, by: actor) }
        return state
    }

    /// The organisation whose members and keys `actor` manages: only an owner's (a member is
    /// refused with 403; staff manage organisations elsewhere).
    package static func managedOrganisation(of actor: SoukActor) throws -> String {
        guard case .developerMember(_, _, let developerID, let role) = actor else {
            throw DeveloperOperationError.notAllowed("Only a member of the organisation manages its keys.")
        }
        guard role == .owner else { throw DeveloperOperationError.notAllowed("Only an owner of the organisation manages its API keys.") }
        return developerID
    }

    /// Returns when `actor` may make a change that needs `scope`; otherwise throws 403.
    package static func requireChange(_ scope: DeveloperScope, by actor: SoukActor) throws {
        if actor.developerID != nil {
            guard actor.developerMay(scope) else { throw DeveloperOperationError.missingScope(scope) }
        } else {
            guard actor.isMarketplaceOperator else { throw DeveloperOperationError.notAllowed("Only an operator may change a developer's app.") }
        }
    }
}
