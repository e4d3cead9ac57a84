import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Reviewing and applying a catalog edit in the console: `ConsoleCatalogEdit`'s steps, as in the
/// developer console, with the operator console's pages. A form over 1 MiB of catalog is a `413`
/// page that says so.
extension AdminController {
    /// The catalog's edit steps for this operator and the form (operators), or the 413 page.
    func catalogEdit(_ request: Request, context: Context) async throws -> (ConsoleCatalogEdit, FormBody) {
        let session = try context.requireConsoleSession()
        let edit = catalogEdit(session: session, state: try await requireCatalog(context))
        do {
            let (_, form) = try await consoleForm(request, context: context, maxBytes: ConsoleCatalogEdit.maxCatalogFormBytes)
            return (edit, form)
        } catch let problem as Problem where problem.status == .contentTooLarge {
            throw ConsoleRefusal(response: try await edit.showTooLarge())
        }
    }

    func catalogEdit(session: ConsoleSession, state: CommerceCatalogState) -> ConsoleCatalogEdit {
        let app = state.catalog.app, path = "/admin/catalog/\(Self.pathComponent(app))"
        return ConsoleCatalogEdit(
            services: developerServices, actor: Self.staffActor(session), state: state, catalogPath: path, namesCommand: true,
            showEditor: { text, error, status in
                try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: status)
            },
            showReview: { values in try await render(.adminCatalogReview, session: session, title: "Review changes to \(app)", page: values) },
            showTooLarge: {
                try await render(.adminCatalogTooLarge, session: session, title: "Catalog too large",
                                 page: ConsoleCatalogEdit.TooLarge(catalogHref: path), status: .contentTooLarge)
            })
    }

    /// Applies the reviewed catalog: the form's review (taken once) must be this operator's, of this
    /// very text (by digest), at the revision the catalog still has; anything else is `409` and a new review.
    @Sendable func applyCatalog(_ request: Request, context: Context) async throws -> Response {
        let (edit, form) = try await catalogEdit(request, context: context)
        return try await edit.apply(form)
    }
}
