import Foundation
import SoukCore
import SoukStore

extension DeveloperOperations {
    /// The in-app catalog of `app` as held now, if it is the actor's.
    public func catalog(actor: SoukActor, app: String) async throws -> CommerceCatalogState {
        try await ownership.catalog(app, for: actor)
    }

    /// Applies a catalog file to `app` (or with `dryRun` only says what would change): the API's
    /// form of `applyCatalog(actor:catalog:dryRun:)`, whose file the rules refuse as `invalid`, naming
    /// the offending path. A file for another app than `app` is refused too.
    public func applyCatalog(actor: SoukActor, app: String, file: [UInt8], dryRun: Bool) async throws -> CatalogApplyReport {
        // What the actor reaches first: another organisation's app is not found before its file is read.
        let current = try await ownership.catalogToApply(app, for: actor)
        let catalog: CommerceCatalog
        do {
            catalog = try CatalogFile.parse(file)
        } catch {
            throw DeveloperOperationError.invalid(field: error.path.isEmpty ? "$" : error.path, error.message)
        }
        guard catalog.app == app else {
            throw DeveloperOperationError.invalid(field: "app", "is \(catalog.app), but this is the catalog of \(app)")
        }
        do {
            return try await apply(catalog, over: current, actor: actor, dryRun: dryRun)
        } catch let error as CatalogFileError {
            throw DeveloperOperationError.invalid(field: error.path.isEmpty ? "$" : error.path, error.message)
        }
    }

    /// Applies `catalog` (or with `dryRun` only says what would change): the one path of
    /// `souk catalog apply`, `souk stores set`, the developer API and the consoles' apply step, through
    /// the runtime's cache (`CommerceCatalogCache.apply`), with its audit entry. A developer may apply
    /// a catalog that is theirs, or create one for the bundle id of one of their own marketplace apps,
    /// which then is theirs: the catalog and its owner are written in one transaction, so a failure
    /// leaves neither. Any other app is not found. A catalog the rules refuse throws `CatalogFileError`.
    public func applyCatalog(actor: SoukActor, catalog: CommerceCatalog, dryRun: Bool) async throws -> CatalogApplyReport {
        try await apply(catalog, over: try await ownership.catalogToApply(catalog.app, for: actor), actor: actor, dryRun: dryRun)
    }

    /// `applyCatalog` once `ownership.catalogToApply` let the actor reach the catalog, `current` as it then was.
    private func apply(_ catalog: CommerceCatalog, over current: CommerceCatalogState?, actor: SoukActor,
                       dryRun: Bool) async throws -> CatalogApplyReport {
        let app = catalog.app
        let report: CatalogApplyReport
        do {
            report = try await catalogs.apply(catalog, dryRun: dryRun, owner: actor.developerID)
        } catch is CatalogOwnedByAnother {
            // Another organisation took the catalog between the check above and the apply.
            throw DeveloperOwnership.noCatalog
        }
        if report.claimed, let developer = actor.developerID {
            try await audit.record(actor: actor.auditName, action: .catalogSetDeveloper, target: "catalog:\(app)",
                                   before: ["developer": ""], after: ["developer": developer])
        }
        try await audit.recordCatalogApply(actor: actor.auditName, beforeRevision: current?.revision, report: report)
        return report
    }
}
