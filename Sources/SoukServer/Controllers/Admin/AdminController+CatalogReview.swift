import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// Reviewing and applying a catalog edit in the console. The review page shows the diff of `souk
/// catalog apply --dry-run` and keeps the reviewed text by its digest (`CatalogReviewStore`); the
/// apply step takes that review and applies the text only when it is the reviewed one, at the
/// reviewed revision. A form over 1 MiB of catalog is a `413` page that says so.
extension AdminController {
    /// The form of a catalog edit (operators), or the page that says it is too large (413).
    func catalogForm(_ request: Request, context: Context) async throws -> (ConsoleSession, FormBody) {
        do {
            return try await consoleForm(request, context: context, maxBytes: Self.maxCatalogFormBytes)
        } catch let problem as Problem where problem.status == .contentTooLarge {
            throw ConsoleRefusal(response: try await tooLargePage(session: try context.requireConsoleSession(), context: context))
        }
    }

    /// `413`: the catalog is over 1 MiB; nothing was reviewed or applied.
    func tooLargePage(session: ConsoleSession, context: Context) async throws -> Response {
        try await render(.adminCatalogTooLarge, session: session, title: "Catalog too large", [
            "limit": "1 MiB", "catalogHref": "/admin/catalog/\(Self.pathComponent(context.parameters.get("app") ?? ""))",
        ], status: .contentTooLarge)
    }

    /// The review page of `text` against the catalog at `state`, or `refuse(error)` for a file the
    /// rules refuse (the same checks and diff as `souk catalog apply --dry-run`). The text the page
    /// carries to the apply step is kept as a review, by digest.
    func review(session: ConsoleSession, state: CommerceCatalogState, text: String,
                refuse: (String) async throws -> Response) async throws -> Response {
        let catalog: CommerceCatalog
        do {
            catalog = try CatalogFile.parse(text)
        } catch {
            return try await refuse("Not applied: \(error.description)")
        }
        guard catalog.app == state.catalog.app else {
            return try await refuse("Not applied: the file's \"app\" is \(catalog.app), but this is the catalog of \(state.catalog.app).")
        }
        let report: CatalogApplyReport
        do {
            report = try await runtime.commerceCatalogs.apply(catalog, dryRun: true)
        } catch let error as CatalogFileError {
            return try await refuse("Not applied: \(error.description)")
        }
        let edited = CatalogFile.encode(catalog)
        // The file's lines before and after, beside the summary, so the operator sees each value that changes.
        let fileLines = TextDiff.lines(from: CatalogFile.encode(state.catalog), to: edited)?.map { line -> [String: Any] in
            ["text": line.text, "added": line.kind == .added, "removed": line.kind == .removed]
        }
        let revision = report.revision ?? state.revision
        var values: [String: Any] = [
            "app": catalog.app, "revision": String(revision), "text": edited,
            "unchanged": report.unchanged, "lines": report.diff.lines.map(Self.diffLine),
            "action": "/admin/catalog/\(Self.pathComponent(catalog.app))/apply",
            "catalogHref": "/admin/catalog/\(Self.pathComponent(catalog.app))",
        ]
        values["fileLines"] = fileLines
        if !report.unchanged {
            values["review"] = try await catalogReviews.keep(app: catalog.app, accountID: session.accountID, revision: revision,
                                                             digest: CatalogFile.reviewDigest(of: edited)).uuidString.lowercased()
        }
        return try await render(.adminCatalogReview, session: session, title: "Review changes to \(catalog.app)", values)
    }

    /// A diff line with its kind (`+` added, `-` retired or removed, `~` changed) for the page.
    static func diffLine(_ line: String) -> [String: Any] {
        ["text": line, "added": line.hasPrefix("+"), "removed": line.hasPrefix("-")]
    }

    /// Applies the reviewed catalog: the form's review (taken once) must be this operator's, of this
    /// very text (by digest), at the revision the catalog still has; anything else is `409` and a new review.
    @Sendable func applyCatalog(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await catalogForm(request, context: context)
        let state = try await requireCatalog(context)
        let text = form["catalog"] ?? ""
        func refuse(_ error: String) async throws -> Response {
            try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: .conflict)
        }
        guard let id = form["review"].flatMap(UUID.init(uuidString:)),
              let review = try await catalogReviews.take(id, app: state.app, accountID: session.accountID) else {
            return try await refuse("Not applied: this review was already used, has expired or is not yours. Review your edit again.")
        }
        guard CatalogFile.reviewDigest(of: text) == review.digest else {
            return try await refuse("Not applied: this is not the text you reviewed. Review it again to see what it would change.")
        }
        guard review.revision == state.revision else {
            return try await refuse("The catalog changed since you reviewed it (it is now at revision \(state.revision)). Review your edit again.")
        }
        let catalog: CommerceCatalog
        do {
            catalog = try CatalogFile.parse(text)
        } catch {
            return try await refuse("Not applied: \(error.description)")
        }
        guard catalog.app == state.catalog.app else { return try await refuse("Not applied: the file is for another app.") }
        let report: CatalogApplyReport
        do {
            report = try await runtime.commerceCatalogs.apply(catalog)
        } catch let error as CatalogFileError {
            return try await refuse("Not applied: \(error.description)")
        }
        try await audit.recordCatalogApply(actor: session.actor, beforeRevision: state.revision, report: report)
        return WebController<Context>.seeOther("/admin/catalog/\(Self.pathComponent(catalog.app))?done=applied")
    }
}
