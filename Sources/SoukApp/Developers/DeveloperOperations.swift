import Foundation
import SoukCore
import SoukStore

/// The developer organisations' operations, shared by the developer API, the CLI and the consoles:
/// each takes the `SoukActor` doing it, checks what that actor may reach here (`authorize`,
/// `ownedApp`, `ownedCatalog`: a developer actor reaches only its own organisation's apps and
/// catalogs, anything else is "not found"), does one thing through the stores, and writes its own
/// audit entry (docs/developers.md).
public struct DeveloperOperations: Sendable {
    let database: SoukDatabase
    let importer: PackageImporter
    let catalogs: CommerceCatalogCache
    let purchases: PurchaseStore
    /// `reviewNewVersions`: a version a developer uploads waits in review.
    let reviewNewVersions: Bool
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, importer: PackageImporter, catalogs: CommerceCatalogCache, purchases: PurchaseStore,
                reviewNewVersions: Bool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.importer = importer
        self.catalogs = catalogs
        self.purchases = purchases
        self.reviewNewVersions = reviewNewVersions
        self.now = now
    }

    public init(runtime: SoukRuntime) {
        self.init(database: runtime.database, importer: runtime.importer, catalogs: runtime.commerceCatalogs,
                  purchases: runtime.purchases, reviewNewVersions: runtime.config.reviewNewVersions)
    }

    var directory: DeveloperDirectory { DeveloperDirectory(database: database, now: now) }
    var audit: AuditLog { AuditLog(database: database) }

    // MARK: The one place an actor's reach is checked

    /// Passes the marketplace's operator side (operator staff, the CLI, the system) and developer
    /// actors that may do what `scope` names; refuses everyone else.
    package func authorize(_ actor: SoukActor, _ scope: DeveloperScope?) throws {
        if actor.isMarketplaceOperator { return }
        guard actor.developerID != nil else { throw DeveloperOperationError.notAllowed("Only the marketplace's operators may do this.") }
        if let scope, !actor.developerMay(scope) { throw DeveloperOperationError.missingScope(scope) }
    }

    /// Passes only the marketplace's operator side: managing organisations is not a developer's.
    func authorizeOperator(_ actor: SoukActor) throws {
        guard actor.isMarketplaceOperator else { throw DeveloperOperationError.notAllowed("Only the marketplace's operators may do this.") }
    }

    /// The organisation a developer actor acts for; the operator side has none to read "theirs" from.
    func organisation(of actor: SoukActor) throws -> String {
        guard let id = actor.developerID else {
            throw DeveloperOperationError.notAllowed("This reads a developer organisation's own things: act as its member or API key.")
        }
        return id
    }

    /// Checks `scope`, then that the app exists and, for a developer actor, is its organisation's.
    package func ownedApp(_ appleItemId: UInt64, actor: SoukActor, scope: DeveloperScope?) async throws {
        try authorize(actor, scope)
        let notFound = DeveloperOperationError.notFound("No app with AppleItemID \(appleItemId) is yours.")
        if let developer = actor.developerID {
            guard try await directory.owner(appleItemId: appleItemId) == developer else { throw notFound }
        } else {
            guard try await directory.appExists(appleItemId: appleItemId) else { throw notFound }
        }
    }

    /// Checks `scope`, then answers the catalog of `app` when it exists and, for a developer actor,
    /// is its organisation's.
    package func ownedCatalog(_ app: String, actor: SoukActor, scope: DeveloperScope?) async throws -> CommerceCatalogState {
        try authorize(actor, scope)
        let notFound = DeveloperOperationError.notFound("No in-app catalog \(app) is yours.")
        if let developer = actor.developerID {
            guard try await directory.owner(catalog: app) == developer else { throw notFound }
        }
        guard let state = try await catalogs.state(app: app) else { throw notFound }
        return state
    }
}
