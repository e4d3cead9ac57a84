import Foundation
import SoukCore
import SoukStore

/// The one place that decides what an actor reaches, for the developer API, the CLI and the
/// developer console alike. A developer actor reaches only its own organisation's apps, catalogs,
/// webhooks and grants: anything else, another organisation's or the marketplace's own, is
/// `notFound`, exactly like an id that does not exist. The marketplace's operator side (operator
/// staff, the CLI, the system: `SoukActor.isMarketplaceOperator`) reaches everything. A developer key
/// does only what its scopes allow (403 before anything is looked up); a member may do everything
/// in their organisation.
package struct DeveloperOwnership: Sendable {
    package let directory: DeveloperDirectory
    package let catalog: CatalogStore
    package let catalogs: CommerceCatalogStore

    package init(directory: DeveloperDirectory, catalog: CatalogStore, catalogs: CommerceCatalogStore) {
        self.directory = directory
        self.catalog = catalog
        self.catalogs = catalogs
    }

    package static let noApp = DeveloperOperationError.notFound("No app of yours has this AppleItemID.")
    package static let noCatalog = DeveloperOperationError.notFound("No in-app catalog of yours has this id.")

    /// Passes the marketplace's operator side and developer actors that may do what `scope` names
    /// (any developer actor when `scope` is nil); refuses everyone else.
    package static func authorize(_ actor: SoukActor, _ scope: DeveloperScope?) throws {
        if actor.isMarketplaceOperator { return }
        guard actor.developerID != nil else { throw DeveloperOperationError.notAllowed("Only the marketplace's operators may do this.") }
        if let scope, !actor.developerMay(scope) { throw DeveloperOperationError.missingScope(scope) }
    }

    /// What `authorize` passes, and every staff member (support too): for what staff read without
    /// changing anything (which store credentials are set, metrics) and a webhook redelivery (it
    /// sends again what was already sent).
    package static func authorizeReading(_ actor: SoukActor, _ scope: DeveloperScope?) throws {
        if case .staff = actor { return }
        try authorize(actor, scope)
    }

    /// The in-app catalog of `app` for a read that every staff member may make (`authorizeReading`);
    /// a developer actor reaches only its organisation's, as with `catalog(_:for:scope:)`.
    package func catalogForReading(_ app: String, for actor: SoukActor, scope: DeveloperScope? = nil) async throws -> CommerceCatalogState {
        try Self.authorizeReading(actor, scope)
        try await reach(catalog: app, for: actor)
        guard let state = try await catalogs.state(app: app) else { throw Self.noCatalog }
        return state
    }

    /// Checks `scope`, then that the app exists and, for a developer actor, is its organisation's.
    package func reach(appleItemId: UInt64, for actor: SoukActor, scope: DeveloperScope? = nil) async throws {
        try Self.authorize(actor, scope)
        if let developer = actor.developerID {
            guard try await directory.owner(appleItemId: appleItemId) == developer else { throw Self.noApp }
        } else {
            guard try await directory.appExists(appleItemId: appleItemId) else { throw Self.noApp }
        }
    }

    /// The app `appleItemId` when `actor` reaches it (and, with `scope`, may do what it names).
    package func app(_ appleItemId: UInt64, for actor: SoukActor, scope: DeveloperScope? = nil) async throws -> AppRecord {
        try await reach(appleItemId: appleItemId, for: actor, scope: scope)
        do {
            return try await catalog.appRecord(appleItemId: appleItemId)
        } catch CatalogError.notFound {
            throw Self.noApp
        }
    }

    /// Checks `scope`, then answers the in-app catalog of `app` when it exists and, for a developer
    /// actor, is its organisation's.
    package func catalog(_ app: String, for actor: SoukActor, scope: DeveloperScope? = nil) async throws -> CommerceCatalogState {
        try Self.authorize(actor, scope)
        try await reach(catalog: app, for: actor)
        guard let state = try await catalogs.state(app: app) else { throw Self.noCatalog }
        return state
    }

    /// Returns when `actor` reaches the catalog of `app` (a developer actor: its organisation owns it);
    /// for what hangs off a catalog (a webhook, a grant) once the scope is checked.
    package func reach(catalog app: String, for actor: SoukActor) async throws {
        if let developer = actor.developerID {
            guard try await directory.owner(catalog: app) == developer else { throw Self.noCatalog }
        }
    }

    /// The catalog of `app` as held now when `actor` may apply a catalog file to it (`catalog:write`):
    /// theirs, or none yet for the bundle id of one of their own marketplace apps (applying then
    /// creates it for their organisation). Any other app is `notFound`.
    package func catalogToApply(_ app: String, for actor: SoukActor) async throws -> CommerceCatalogState? {
        try Self.authorize(actor, .catalogWrite)
        let current = try await catalogs.state(app: app)
        if let developer = actor.developerID {
            if current != nil {
                try await reach(catalog: app, for: actor)
            } else {
                guard try await directory.bundleIds(of: developer).contains(app) else { throw Self.noCatalog }
            }
        }
        return current
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
}
