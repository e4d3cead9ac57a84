import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An organisation's in-app catalog in the developer console: the operator console's editor, review
/// (the diff of `souk catalog apply --dry-run`) and apply, through `ReviewCatalogEdit` and
/// `ApplyCatalogEdit`. A form over 1 MiB of catalog is refused before it is read (413).
extension DeveloperConsoleController {
    func addCatalogRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("catalog/:app", use: catalogPage)
        routes.members.post("catalog/:app/review", use: reviewCatalog)
        routes.members.post("catalog/:app/apply", use: applyCatalog)
    }

    static func catalogPath(_ app: String) -> String { "/developer/catalog/" + AdminController<Context>.pathComponent(app) }

    /// `/developer/catalog/<app>`: products, entitlements and the catalog file to edit.
    @Sendable func catalogPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let state = try await services.ownership.catalog(context.parameters.get("app") ?? "", for: session.actor)
        let notice = request.uri.queryParameters["done"] == "applied" ? "Applied: the catalog is at revision \(state.revision)." : nil
        return try await catalogEditor(session: session, state: state, text: CatalogFile.encode(state.catalog), notice: notice, error: nil)
    }

    func catalogEditor(session: DeveloperSession, state: CommerceCatalogState, text: String, notice: String?, error: String?,
                       status: HTTPResponse.Status = .ok) async throws -> Response {
        let app = state.catalog.app
        let page = CatalogEditorPage(catalogPath: Self.catalogPath(app), links: [
            ("Promotional grants", Self.catalogPath(app) + "/grants"), ("Purchases", Self.catalogPath(app) + "/purchases"),
            ("Webhooks", Self.catalogPath(app) + "/webhooks"), ("Store credentials", Self.catalogPath(app) + "/credentials"),
        ])
        return try await render(.developerCatalog, session: session, title: "Catalog of \(app)",
                                page.values(state: state, text: text, notice: notice, error: error), status: status)
    }

    /// The edit form, after the gate and ownership (404 before the body is read), or a 413 page.
    private func catalogForm(_ request: Request, context: Context) async throws -> (DeveloperSession, CommerceCatalogState, FormBody) {
        let session = try context.requireDeveloperSession()
        let state = try await services.ownership.catalog(context.parameters.get("app") ?? "", for: session.actor)
        do {
            let (_, form) = try await memberForm(request, context: context, maxBytes: AdminController<Context>.maxCatalogFormBytes)
            return (session, state, form)
        } catch let problem as Problem where problem.status == .contentTooLarge {
            throw ConsoleRefusal(response: try await tooLargePage(session: session, app: state.catalog.app))
        }
    }

    /// `413`: the catalog is over 1 MiB; nothing was reviewed or applied.
    private func tooLargePage(session: DeveloperSession, app: String) async throws -> Response {
        try await render(.developerCatalogTooLarge, session: session, title: "Catalog too large", [
            "limit": "1 MiB", "catalogHref": Self.catalogPath(app),
        ], status: .contentTooLarge)
    }

    /// Reads the edited file and shows what applying it would change.
    @Sendable func reviewCatalog(_ request: Request, context: Context) async throws -> Response {
        let (session, state, form) = try await catalogForm(request, context: context)
        let text = form["catalog"] ?? ""
        guard text.utf8.count <= AdminController<Context>.maxCatalogBytes else { return try await tooLargePage(session: session, app: state.catalog.app) }
        let page = CatalogReviewPage(catalogPath: Self.catalogPath(state.catalog.app), namesCommand: false)
        let values: [String: Any]
        switch try await ReviewCatalogEdit(services: services)(actor: session.actor, app: state.catalog.app, text: text) {
        case .refused(let error):
            return try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: .unprocessableContent)
        case .unchanged: values = page.values(state: state, changes: nil)
        case .changes(let changes): values = page.values(state: state, changes: changes)
        }
        return try await render(.developerCatalogReview, session: session, title: "Review changes to \(state.catalog.app)", values)
    }

    /// Applies the reviewed text; anything but the reviewed text at the reviewed revision is 409.
    @Sendable func applyCatalog(_ request: Request, context: Context) async throws -> Response {
        let (session, state, form) = try await catalogForm(request, context: context)
        let text = form["catalog"] ?? ""
        switch try await ApplyCatalogEdit(services: services)(actor: session.actor, app: state.catalog.app, text: text,
                                                              review: form["review"].flatMap(UUID.init(uuidString:))) {
        case .refused(let error):
            return try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: .conflict)
        case .applied:
            return WebController<Context>.seeOther(Self.catalogPath(state.catalog.app) + "?done=applied")
        }
    }
}
