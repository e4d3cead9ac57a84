import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An organisation's in-app catalog in the developer console: the operator console's editor, review
/// (the diff of `souk catalog apply --dry-run`) and apply, through `ReviewCatalogEdit` and
/// `ApplyCatalogEdit`, in `ConsoleCatalogEdit`'s steps. A form over 1 MiB of catalog is refused
/// before it is read (413).
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
        return try await catalogEditor(session: session, state: state, text: CatalogFile.encode(state.catalog),
                                       notice: ConsoleCatalogEdit.notice(request, state: state), error: nil)
    }

    func catalogEditor(session: DeveloperSession, state: CommerceCatalogState, text: String, notice: String?, error: String?,
                       status: HTTPResponse.Status = .ok) async throws -> Response {
        let app = state.catalog.app
        let page = CatalogEditorPage(catalogPath: Self.catalogPath(app), links: [
            ("Promotional grants", Self.catalogPath(app) + "/grants"), ("Purchases", Self.catalogPath(app) + "/purchases"),
            ("Webhooks", Self.catalogPath(app) + "/webhooks"), ("Store credentials", Self.catalogPath(app) + "/credentials"),
        ])
        return try await render(.developerCatalog, session: session, title: "Catalog of \(app)",
                                page: page.values(state: state, text: text, notice: notice, error: error), status: status)
    }

    /// The edit form and its review and apply steps, after the gate and ownership (404 before the
    /// body is read), or the 413 page.
    private func catalogEdit(_ request: Request, context: Context) async throws -> (ConsoleCatalogEdit, FormBody) {
        let session = try context.requireDeveloperSession()
        let state = try await services.ownership.catalog(context.parameters.get("app") ?? "", for: session.actor)
        let app = state.catalog.app
        let edit = ConsoleCatalogEdit(
            services: services, actor: session.actor, state: state, catalogPath: Self.catalogPath(app), namesCommand: false,
            showEditor: { text, error, status in
                try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: status)
            },
            showReview: { values in try await render(.developerCatalogReview, session: session, title: "Review changes to \(app)", page: values) },
            showTooLarge: {
                try await render(.developerCatalogTooLarge, session: session, title: "Catalog too large",
                                 page: ConsoleCatalogEdit.TooLarge(catalogHref: Self.catalogPath(app)), status: .contentTooLarge)
            })
        do {
            let (_, form) = try await memberForm(request, context: context, maxBytes: ConsoleCatalogEdit.maxCatalogFormBytes)
            return (edit, form)
        } catch let problem as Problem where problem.status == .contentTooLarge {
            throw ConsoleRefusal(response: try await edit.showTooLarge())
        }
    }

    /// Reads the edited file and shows what applying it would change.
    @Sendable func reviewCatalog(_ request: Request, context: Context) async throws -> Response {
        let (edit, form) = try await catalogEdit(request, context: context)
        return try await edit.review(form["catalog"] ?? "")
    }

    /// Applies the reviewed text; anything but the reviewed text at the reviewed revision is 409.
    @Sendable func applyCatalog(_ request: Request, context: Context) async throws -> Response {
        let (edit, form) = try await catalogEdit(request, context: context)
        return try await edit.apply(form)
    }
}
