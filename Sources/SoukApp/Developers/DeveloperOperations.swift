import Foundation
import SoukCore
import SoukStore

/// The developer organisations' operations, shared by the developer API, the CLI and the consoles:
/// each takes the `SoukActor` doing it, checks what that actor may reach here (`ownership`,
/// `DeveloperOwnership`: a developer actor reaches only its own organisation's apps and
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

    /// What the actor reaches (`DeveloperOwnership`: the one reach check of the API, the CLI and
    /// the developer console).
    package var ownership: DeveloperOwnership {
        DeveloperOwnership(directory: directory, catalog: CatalogStore(database: database), catalogs: catalogs.store)
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
}
