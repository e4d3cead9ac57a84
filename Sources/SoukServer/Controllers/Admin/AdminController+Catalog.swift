import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// Product catalogs in the console, with the rules and the diff of `souk catalog apply`: the
/// operator edits the catalog file (or one product of it), sees what applying would change, and
/// applies exactly that — refused if the catalog changed meanwhile. Support may look, not change.
extension AdminController {
    /// The largest catalog text accepted from the form.
    static var maxCatalogBytes: Int { 1 << 20 }

    func addCatalogRoutes(to router: Router<Context>) {
        router.get("admin/catalog", use: catalogs)
        router.get("admin/catalog/:app", use: catalogPage)
        router.post("admin/catalog/:app/review", use: reviewCatalog)
        router.post("admin/catalog/:app/apply", use: applyCatalog)
        router.get("admin/catalog/:app/products/:product", use: productPage)
        router.post("admin/catalog/:app/products/:product/review", use: reviewProduct)
    }

    /// `/admin/catalog`: every app with a product catalog.
    @Sendable func catalogs(_ request: Request, context: Context) async throws -> Response {
        let session = try await gate.session(request)
        let store = runtime.commerceCatalogs.store
        var rows: [[String: String]] = []
        for app in try await store.apps() {
            guard let state = try await store.state(app: app) else { continue }
            rows.append(["app": app, "revision": String(state.revision), "onSale": String(state.catalog.products.count),
                         "retired": String(state.retired.count), "modified": WebController<Context>.format(state.modifiedAt)])
        }
        return try await render("admin-catalogs", session: session, title: "Catalogs", ["catalogs": rows])
    }

    private func requireCatalog(_ context: Context) async throws -> CommerceCatalogState {
        guard let app = context.parameters.get("app"), let state = try await runtime.commerceCatalogs.store.state(app: app) else {
            throw Problem(.notFound, "No app has a product catalog under this id.")
        }
        return state
    }

    /// `/admin/catalog/<app>`: its products and entitlements, and the catalog file to edit.
    @Sendable func catalogPage(_ request: Request, context: Context) async throws -> Response {
        let session = try await gate.session(request)
        let state = try await requireCatalog(context)
        let notice = request.uri.queryParameters["done"] == "applied" ? "Applied: the catalog is at revision \(state.revision)." : nil
        return try await catalogEditor(session: session, state: state, text: CatalogFile.encode(state.catalog), notice: notice, error: nil)
    }

    private func catalogEditor(session: ConsoleSession, state: CommerceCatalogState, text: String, notice: String?, error: String?,
                               status: HTTPResponse.Status = .ok) async throws -> Response {
        let app = state.catalog.app
        var values: [String: Any] = [
            "app": app, "revision": String(state.revision), "text": text,
            "products": state.catalog.products.map { product in
                ["id": product.id, "type": product.type.rawValue, "title": product.title["en"] ?? product.title.values.first ?? "",
                 "prices": product.prices.map(\.formatted).joined(separator: ", "), "entitlements": product.entitlements.joined(separator: ", "),
                 "href": "/admin/catalog/\(Self.pathComponent(app))/products/\(Self.pathComponent(product.id))"]
            },
            "entitlements": state.catalog.entitlements.map { ["id": $0.id] },
            "retired": state.retired.map(\.id).joined(separator: ", "),
            "action": "/admin/catalog/\(Self.pathComponent(app))/review",
        ]
        values["notice"] = notice
        values["error"] = error
        return try await render("admin-catalog", session: session, title: "Catalog of \(app)", values, status: status)
    }

    /// Reads the edited catalog file and shows what applying it would change.
    @Sendable func reviewCatalog(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await gate.form(request, context: context, operatorOnly: true)
        let state = try await requireCatalog(context)
        let text = form["catalog"] ?? ""
        return try await review(session: session, state: state, text: text) { error in
            try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: .unprocessableContent)
        }
    }

    /// `/admin/catalog/<app>/products/<id>`: one product's definition to edit.
    @Sendable func productPage(_ request: Request, context: Context) async throws -> Response {
        let session = try await gate.session(request)
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
        var values: [String: Any] = [
            "app": app, "productId": productId, "text": text, "catalogHref": "/admin/catalog/\(Self.pathComponent(app))",
            "action": "/admin/catalog/\(Self.pathComponent(app))/products/\(Self.pathComponent(productId))/review",
        ]
        values["error"] = error
        return try await render("admin-product", session: session, title: "\(productId) · \(app)", values, status: status)
    }

    /// Reads one edited product, puts it in place of the stored one, and shows what applying would change.
    @Sendable func reviewProduct(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await gate.form(request, context: context, operatorOnly: true)
        let state = try await requireCatalog(context)
        let original = try requireProduct(state, context)
        let text = form["product"] ?? ""
        func refuse(_ error: String) async throws -> Response {
            try await productEditor(session: session, state: state, productId: original.id, text: text, error: error, status: .unprocessableContent)
        }
        guard text.utf8.count <= Self.maxCatalogBytes else { return try await refuse("The product is longer than 1 MiB.") }
        let edited: ProductDefinition
        do {
            edited = try CatalogFile.product(json: text)
        } catch {
            return try await refuse("Not applied: \(error.description)")
        }
        var catalog = state.catalog
        catalog.products = catalog.products.map { $0.id == original.id ? edited : $0 }
        return try await review(session: session, state: state, text: CatalogFile.encode(catalog), refuse: refuse)
    }

    /// The review page of `text` against the catalog at `state`, or `refuse(error)` for a file the
    /// rules refuse (the same checks and diff as `souk catalog apply --dry-run`).
    private func review(session: ConsoleSession, state: CommerceCatalogState, text: String,
                        refuse: (String) async throws -> Response) async throws -> Response {
        guard text.utf8.count <= Self.maxCatalogBytes else { return try await refuse("The catalog is longer than 1 MiB.") }
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
        var values: [String: Any] = [
            "app": catalog.app, "revision": String(report.revision ?? state.revision), "text": edited,
            "unchanged": report.unchanged, "lines": report.diff.lines.map(Self.diffLine),
            "action": "/admin/catalog/\(Self.pathComponent(catalog.app))/apply",
            "catalogHref": "/admin/catalog/\(Self.pathComponent(catalog.app))",
        ]
        values["fileLines"] = fileLines
        return try await render("admin-catalog-review", session: session, title: "Review changes to \(catalog.app)", values)
    }

    /// A diff line with its kind (`+` added, `-` retired or removed, `~` changed) for the page.
    static func diffLine(_ line: String) -> [String: Any] {
        ["text": line, "added": line.hasPrefix("+"), "removed": line.hasPrefix("-")]
    }

    /// Applies the reviewed catalog, if the catalog is still at the reviewed revision.
    @Sendable func applyCatalog(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await gate.form(request, context: context, operatorOnly: true)
        let state = try await requireCatalog(context)
        let text = form["catalog"] ?? ""
        func refuse(_ error: String) async throws -> Response {
            try await catalogEditor(session: session, state: state, text: text, notice: nil, error: error, status: .conflict)
        }
        guard form["revision"] == String(state.revision) else {
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
        if report.applied {
            try await audit.record(actor: session.actor, action: "catalog.apply", target: "catalog:\(catalog.app)",
                                   before: ["revision": String(state.revision)],
                                   after: ["revision": report.revision.map(String.init) ?? "", "changes": report.diff.lines.joined(separator: "\n")])
        }
        return WebController<Context>.seeOther("/admin/catalog/\(Self.pathComponent(catalog.app))?done=applied")
    }

    /// A bundle or product id as one URL path segment.
    static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }
}
