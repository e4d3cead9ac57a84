import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// What the two consoles' catalog review page (`console-catalog-review`) shows for a
/// `ReviewCatalogEdit`: the summary of the changes (the diff of `souk catalog apply --dry-run`), the
/// file line by line, and the form that applies exactly the reviewed text, under each console's
/// own navigation and paths.
struct CatalogReviewPage {
    /// `/admin/catalog/<app>` or `/developer/catalog/<app>`: the editor, and the prefix of its apply step.
    let catalogPath: String
    /// Whether the page names `souk catalog apply` (the operator has the server's shell; a developer has not).
    let namesCommand: Bool

    /// The `console-catalog-review` partial's context.
    struct Values: Sendable {
        let app: String
        let catalogHref: String
        /// The edit changes nothing: no diff, no apply form.
        let unchanged: Bool
        let namesCommand: Bool
        var revision: String?
        var text: String?
        /// The summary of the changes (`+` added, `-` retired or removed, `~` changed).
        var lines: [DiffLineValues] = []
        var action: String?
        var review: String?
        /// The file's lines before and after, beside the summary, so the person sees each value that changes.
        var fileLines: [DiffLineValues] = []
    }

    /// The page's values: "no change" when `changes` is nil, else the diff and the apply form.
    func values(state: CommerceCatalogState, changes: ReviewCatalogEdit.Changes?) -> Values {
        var values = Values(app: state.catalog.app, catalogHref: catalogPath, unchanged: changes == nil, namesCommand: namesCommand)
        guard let changes else { return values }
        values.revision = String(changes.report.revision ?? state.revision)
        values.text = changes.text
        values.lines = changes.report.diff.lines.map(DiffLineValues.init(summary:))
        values.action = catalogPath + "/apply"
        values.review = changes.review.uuidString.lowercased()
        values.fileLines = TextDiff.lines(from: CatalogFile.encode(state.catalog), to: changes.text)?.map(DiffLineValues.init) ?? []
        return values
    }
}

/// What the two consoles' catalog page (`console-catalog`, `console-catalog-form`) shows: the
/// revision, the products on sale and the entitlements, the console's links, and the catalog file
/// to edit (its form posts to the review step).
struct CatalogEditorPage {
    /// `/admin/catalog/<app>` or `/developer/catalog/<app>`.
    let catalogPath: String
    /// The pages the catalog page links to, in order (label, path).
    let links: [(label: String, href: String)]
    /// A product's own page, when the console has one.
    var productHref: ((String) -> String)?

    /// The `console-catalog` and `console-catalog-form` partials' context.
    struct Values: Sendable {
        struct Product: Sendable {
            let id: String
            let type: String
            let title: String
            let prices: String
            let entitlements: String
            /// The product's own page, when the console has one.
            let href: String?
        }

        struct Entitlement: Sendable { let id: String }

        struct Link: Sendable {
            let label: String
            let href: String
        }

        let app: String
        let revision: String
        /// The catalog file in the editor.
        let text: String
        /// Where the editor posts (the review step).
        let action: String
        let products: [Product]
        let entitlements: [Entitlement]
        let links: [Link]
        /// The retired products' ids, comma-separated; nil when none is.
        let retired: String?
        let notice: String?
        let error: String?
    }

    func values(state: CommerceCatalogState, text: String, notice: String?, error: String?) -> Values {
        Values(
            app: state.catalog.app, revision: String(state.revision), text: text, action: catalogPath + "/review",
            products: state.catalog.products.map { product in
                Values.Product(id: product.id, type: product.type.rawValue, title: product.title["en"] ?? product.title.values.first ?? "",
                               prices: product.prices.map(\.formatted).joined(separator: ", "),
                               entitlements: product.entitlements.joined(separator: ", "), href: productHref?(product.id))
            },
            entitlements: state.catalog.entitlements.map { Values.Entitlement(id: $0.id) },
            links: links.map { Values.Link(label: $0.label, href: $0.href) },
            retired: state.retiredIdsForPage, notice: notice, error: error)
    }
}

/// A catalog edit's review and apply steps, for either console, through the operations both use
/// (`ReviewCatalogEdit`, `ApplyCatalogEdit`): the review page shows the diff of `souk catalog apply
/// --dry-run` and keeps the reviewed text by its digest; the apply step applies the text only when
/// it is the reviewed one, at the reviewed revision (else `409` and the editor again). A catalog over
/// 1 MiB is the console's "too large" page (`413`); nothing is reviewed or applied.
struct ConsoleCatalogEdit {
    /// The largest catalog text accepted from the form.
    static var maxCatalogBytes: Int { 1 << 20 }
    /// The largest catalog form: percent-encoding writes a byte of the text as up to three, and the
    /// form carries a few small fields besides.
    static var maxCatalogFormBytes: Int { 3 * maxCatalogBytes + (64 << 10) }

    let services: DeveloperServices
    let actor: SoukActor
    let state: CommerceCatalogState
    /// `/admin/catalog/<app>` or `/developer/catalog/<app>`.
    let catalogPath: String
    /// Whether the review page names `souk catalog apply` (the operator has the server's shell).
    let namesCommand: Bool
    /// The editor again with the person's text and a refusal.
    let showEditor: (_ text: String, _ error: String, _ status: HTTPResponse.Status) async throws -> Response
    /// The review page with `CatalogReviewPage`'s values.
    let showReview: (_ values: CatalogReviewPage.Values) async throws -> Response
    /// The "too large" page.
    let showTooLarge: () async throws -> Response

    /// The "too large" page's context.
    struct TooLarge: Sendable {
        let limit = "1 MiB"
        let catalogHref: String
    }

    /// The editor's notice after an apply (`?done=applied`).
    static func notice(_ request: Request, state: CommerceCatalogState) -> String? {
        request.uri.queryParameters["done"] == "applied" ? "Applied: the catalog is at revision \(state.revision)." : nil
    }

    /// The review page of `text` against the catalog, or `refuse(error)` (by default the editor,
    /// `422`) for a file the rules refuse.
    func review(_ text: String, refuse: ((String) async throws -> Response)? = nil) async throws -> Response {
        guard text.utf8.count <= Self.maxCatalogBytes else { return try await showTooLarge() }
        let page = CatalogReviewPage(catalogPath: catalogPath, namesCommand: namesCommand)
        switch try await ReviewCatalogEdit(services: services)(actor: actor, app: state.catalog.app, text: text) {
        case .refused(let error):
            if let refuse { return try await refuse(error) }
            return try await showEditor(text, error, .unprocessableContent)
        case .unchanged: return try await showReview(page.values(state: state, changes: nil))
        case .changes(let changes): return try await showReview(page.values(state: state, changes: changes))
        }
    }

    /// Applies the form's `catalog` when it is the text its `review` was taken for.
    func apply(_ form: FormBody) async throws -> Response {
        let text = form["catalog"] ?? ""
        switch try await ApplyCatalogEdit(services: services)(actor: actor, app: state.catalog.app, text: text,
                                                              review: form["review"].flatMap(UUID.init(uuidString:))) {
        case .refused(let error): return try await showEditor(text, error, .conflict)
        case .applied: return WebPage.seeOther(catalogPath + "?done=applied")
        }
    }
}
