import Foundation
import SoukCore
import SoukStore

/// The first step of a catalog edit, for an actor that reaches the catalog: the rules and the diff
/// of `souk catalog apply --dry-run`; a real change is kept as a review (by the text's digest, for
/// the signed-in person) that `ApplyCatalogEdit` takes. Writes nothing else.
package struct ReviewCatalogEdit: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    package enum Outcome: Sendable {
        /// The file the rules refuse, and why (nothing kept).
        case refused(String)
        /// The catalog already is what was sent.
        case unchanged(CommerceCatalogState)
        case changes(Changes)
    }

    package struct Changes: Sendable {
        package var state: CommerceCatalogState
        package var report: CatalogApplyReport
        /// The file as it would be stored (what the apply step must send back).
        package var text: String
        package var review: UUID
    }

    package func callAsFunction(actor: SoukActor, app: String, text: String) async throws -> Outcome {
        let state = try await services.ownership.catalog(app, for: actor, scope: .catalogWrite)
        let person = try Self.person(actor)
        let catalog: CommerceCatalog
        do {
            catalog = try CatalogFile.parse(text)
        } catch {
            return .refused("Not applied: \(error.description)")
        }
        guard catalog.app == state.catalog.app else {
            return .refused("Not applied: the file's \"app\" is \(catalog.app), but this is the catalog of \(state.catalog.app).")
        }
        let report: CatalogApplyReport
        do {
            report = try await services.commerceCatalogs.apply(catalog, dryRun: true)
        } catch let error as CatalogFileError {
            return .refused("Not applied: \(error.description)")
        }
        guard !report.unchanged else { return .unchanged(state) }
        let edited = CatalogFile.encode(catalog)
        let review = try await services.catalogReviews.keep(app: catalog.app, accountID: person, revision: report.revision ?? state.revision,
                                                            digest: CatalogFile.reviewDigest(of: edited))
        return .changes(Changes(state: state, report: report, text: edited, review: review))
    }

    /// The person a review belongs to: reviews are kept per signed-in account.
    package static func person(_ actor: SoukActor) throws -> UUID {
        switch actor {
        case .developerMember(let accountID, _, _, _), .staff(let accountID, _, _): accountID
        case .developerKey, .cli, .system: throw DeveloperOperationError.notAllowed("A catalog review belongs to a signed-in person.")
        }
    }
}

/// The second step: applies the reviewed text when it is exactly what this person reviewed, at the
/// revision the catalog still has; anything else is `refused` (answered 409: review again). Applies
/// through `DeveloperOperations.applyCatalog`, with its audit entry.
package struct ApplyCatalogEdit: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    package enum Outcome: Sendable {
        case refused(String)
        case applied(revision: Int)
    }

    package func callAsFunction(actor: SoukActor, app: String, text: String, review id: UUID?) async throws -> Outcome {
        let state = try await services.ownership.catalog(app, for: actor, scope: .catalogWrite)
        let person = try ReviewCatalogEdit.person(actor)
        guard let id, let review = try await services.catalogReviews.take(id, app: state.app, accountID: person) else {
            return .refused("Not applied: this review was already used, has expired or is not yours. Review your edit again.")
        }
        guard CatalogFile.reviewDigest(of: text) == review.digest else {
            return .refused("Not applied: this is not the text you reviewed. Review it again to see what it would change.")
        }
        guard review.revision == state.revision else {
            return .refused("The catalog changed since you reviewed it (it is now at revision \(state.revision)). Review your edit again.")
        }
        let catalog: CommerceCatalog
        do {
            catalog = try CatalogFile.parse(text)
        } catch {
            return .refused("Not applied: \(error.description)")
        }
        guard catalog.app == state.catalog.app else { return .refused("Not applied: the file is for another app.") }
        let report: CatalogApplyReport
        do {
            report = try await services.operations.applyCatalog(actor: actor, catalog: catalog, dryRun: false)
        } catch let error as CatalogFileError {
            return .refused("Not applied: \(error.description)")
        }
        return .applied(revision: report.revision ?? state.revision)
    }
}
