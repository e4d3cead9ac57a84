import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// Product catalogs in the console, with the rules and the diff of `souk catalog apply`: the
/// operator edits the catalog file (or one product of it), sees what applying would change, and
/// applies exactly that (`ConsoleCatalogEdit`, as in the developer console). Support may look, not change.
extension AdminController {
    var catalogReviews: CatalogReviewStore { developerServices.catalogReviews }

    func addCatalogRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("catalog", use: catalogs)
        routes.staff.get("catalog/:app", use: catalogPage)
        routes.operators.post("catalog/:app/review", use: reviewCatalog)
        routes.operators.post("catalog/:app/apply", use: applyCatalog)
        routes.staff.get("catalog/:app/products/:product", use: productPage)
        routes.operators.post("catalog/:app/products/:product/review", use: reviewProduct)
    }

    /// `/admin/catalog`: every app with a product catalog.
    @Sendable func catalogs(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let store = services.commerceCatalogs.store
        var rows: [AdminCatalogsValues.Catalog] = []
        for app in try await store.apps() {
            guard let state = try await store.state(app: app) else { continue }
            rows.append(.init(app: app, revision: String(state.revision), onSale: String(state.catalog.products.count),
                              retired: String(state.retired.count), modified: WebPage.format(state.modifiedAt)))
        }
        return try await render(.adminCatalogs, session: session, title: "Catalogs", page: AdminCatalogsValues(catalogs: rows))
    }

    func requireCatalog(_ context: Context) async throws -> CommerceCatalogState {
        guard let app = context.parameters.get("app"), let state = try await services.commerceCatalogs.store.state(app: app) else {
            throw Problem(.notFound, "No app has a product catalog under this id.")
        }
        return state
    }

    /// `/admin/catalog/<app>`: its products and entitlements, and the catalog file to edit.
    @Sendable func catalogPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let state = try await requireCatalog(context)
        return try await catalogEditor(session: session, state: state, text: CatalogFile.encode(state.catalog),
                                       notice: ConsoleCatalogEdit.notice(request, state: state), error: nil)
    }

    func catalogEditor(session: ConsoleSession, state: CommerceCatalogState, text: String, notice: String?, error: String?,
                       status: HTTPResponse.Status = .ok) async throws -> Response {
        let app = state.catalog.app
        let page = CatalogEditorPage(
            catalogPath: "/admin/catalog/\(Self.pathComponent(app))",
            links: [("App Store renewal-date extensions", Self.extensionsPath(app)), ("Store credentials", Self.credentialsPath(app))],
            productHref: { "/admin/catalog/\(Self.pathComponent(app))/products/\(Self.pathComponent($0))" })
        return try await render(.adminCatalog, session: session, title: "Catalog of \(app)",
                                page: page.values(state: state, text: text, notice: notice, error: error), status: status)
    }

    /// Reads the edited catalog file and shows what applying it would change.
    @Sendable func reviewCatalog(_ request: Request, context: Context) async throws -> Response {
        let (edit, form) = try await catalogEdit(request, context: context)
        return try await edit.review(form["catalog"] ?? "")
    }

    /// `/admin/catalog/<app>/products/<id>`: one product's definition to edit.
    @Sendable func productPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let state = try await requireCatalog(context)
        let product = try requireProduct(state, context)
        return try await productEditor(session: session, state: state, productId: product.id,
                                       text: CatalogFile.jsonValue(product).prettyText(), error: nil)
    }

    private func requireProduct(_ state: CommerceCatalogState, _ context: Context) throws -> ProductDefinition {
        guard let id = context.parameters.get("product"), let product = state.catalog.products.first(where: { $0.id == id }) else {
            throw Problem(.notFound, "This catalog has no product on sale with this id.")
        }
        return product
    }

    private func productEditor(session: ConsoleSession, state: CommerceCatalogState, productId: String, text: String, error: String?,
                               status: HTTPResponse.Status = .ok) async throws -> Response {
        let app = state.catalog.app
        let values = AdminProductValues(
            app: app, productId: productId, text: text, catalogHref: "/admin/catalog/\(Self.pathComponent(app))",
            action: "/admin/catalog/\(Self.pathComponent(app))/products/\(Self.pathComponent(productId))/review", error: error)
        return try await render(.adminProduct, session: session, title: "\(productId) · \(app)", page: values, status: status)
    }

    /// Reads one edited product, puts it in place of the stored one, and shows what applying would change.
    @Sendable func reviewProduct(_ request: Request, context: Context) async throws -> Response {
        let (edit, form) = try await catalogEdit(request, context: context)
        let session = try context.requireConsoleSession(), state = edit.state
        let original = try requireProduct(state, context)
        let text = form["product"] ?? ""
        func refuse(_ error: String) async throws -> Response {
            try await productEditor(session: session, state: state, productId: original.id, text: text, error: error, status: .unprocessableContent)
        }
        guard text.utf8.count <= ConsoleCatalogEdit.maxCatalogBytes else { return try await edit.showTooLarge() }
        let edited: ProductDefinition
        do {
            edited = try CatalogFile.product(json: text)
        } catch {
            return try await refuse("Not applied: \(error.description)")
        }
        var catalog = state.catalog
        catalog.products = catalog.products.map { $0.id == original.id ? edited : $0 }
        return try await edit.review(CatalogFile.encode(catalog), refuse: refuse)
    }

    /// A bundle or product id as one URL path segment.
    static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }
}
