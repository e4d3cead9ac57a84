import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Reviewing and applying a catalog edit in the console, through the operations the developer
/// console uses too (`ReviewCatalogEdit`, `ApplyCatalogEdit`): the review page shows the diff of
/// `souk catalog apply --dry-run` and keeps the reviewed text by its digest; the apply step applies
/// the text only when it is the reviewed one, at the reviewed revision. A form over 1 MiB of
/// catalog is a `413` page that says so.
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

    /// The review page of `text` against the catalog at `state` (`ReviewCatalogEdit`, which keeps
    /// the reviewed text by digest for the apply step), or `refuse(error)` for a file the rules
    /// refuse (the same checks and diff as `souk catalog apply --dry-run`).
    func review(session: ConsoleSession, state: CommerceCatalogState, text: String,
                refuse: (String) async throws -> Response) async throws -> Response {
        let page = CatalogReviewPage(catalogPath: "/admin/catalog/\(Self.pathComponent(state.catalog.app))", namesCommand: true)
        let values: [String: Any]
        switch try await ReviewCatalogEdit(services: developerServices)(actor: Self.staffActor(session), app: state.catalog.app, text: text) {
        case .refused(let error): return try await refuse(error)
        case .unchanged: values = page.values(state: state, changes: nil)
        case .changes(let changes): values = page.values(state: state, changes: changes)
        }
        return try await render(.adminCatalogReview, session: session, title: "Review changes to \(state.catalog.app)", values)
    }

    /// Applies the reviewed catalog (`ApplyCatalogEdit`): the form's review (taken once) must be this
    /// operator's, of this very text (by digest), at the revision the catalog still has; anything else
    /// is `409` and a new review.
    @Sendable func applyCatalog(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await catalogForm(request, context: context)
        let state = try await requireCatalog(context)
        let text = form["catalog"] ?? ""
        switch try await ApplyCatalogEdit(services: developerServices)(actor: Self.staffActor(session), app: state.catalog.app, text: text,
                                                                       review: form["review"].flatMap(UUID.init(uuidString:))) {
        case .refused(let error):
            return try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: .conflict)
        case .applied:
            return WebController<Context>.seeOther("/admin/catalog/\(Self.pathComponent(state.catalog.app))?done=applied")
        }
    }
}
