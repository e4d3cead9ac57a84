import Foundation
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

    /// The page's values: "no change" when `changes` is nil, else the diff and the apply form.
    func values(state: CommerceCatalogState, changes: ReviewCatalogEdit.Changes?) -> [String: Any] {
        var values: [String: Any] = [
            "app": state.catalog.app, "catalogHref": catalogPath, "unchanged": changes == nil, "namesCommand": namesCommand,
        ]
        guard let changes else { return values }
        values["revision"] = String(changes.report.revision ?? state.revision)
        values["text"] = changes.text
        values["lines"] = changes.report.diff.lines.map(Self.diffLine)
        values["action"] = catalogPath + "/apply"
        values["review"] = changes.review.uuidString.lowercased()
        // The file's lines before and after, beside the summary, so the person sees each value that changes.
        values["fileLines"] = TextDiff.lines(from: CatalogFile.encode(state.catalog), to: changes.text)?.map { line -> [String: Any] in
            ["text": line.text, "added": line.kind == .added, "removed": line.kind == .removed]
        }
        return values
    }

    /// A diff line with its kind (`+` added, `-` retired or removed, `~` changed) for the page.
    static func diffLine(_ line: String) -> [String: Any] {
        ["text": line, "added": line.hasPrefix("+"), "removed": line.hasPrefix("-")]
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

    func values(state: CommerceCatalogState, text: String, notice: String?, error: String?) -> [String: Any] {
        var values: [String: Any] = [
            "app": state.catalog.app, "revision": String(state.revision), "text": text, "action": catalogPath + "/review",
            "products": state.catalog.products.map { product -> [String: Any] in
                var row: [String: Any] = [
                    "id": product.id, "type": product.type.rawValue, "title": product.title["en"] ?? product.title.values.first ?? "",
                    "prices": product.prices.map(\.formatted).joined(separator: ", "), "entitlements": product.entitlements.joined(separator: ", "),
                ]
                row["href"] = productHref?(product.id)
                return row
            },
            "entitlements": state.catalog.entitlements.map { ["id": $0.id] },
            "links": links.map { ["label": $0.label, "href": $0.href] },
        ]
        values["retired"] = state.retiredIdsForPage
        values["notice"] = notice
        values["error"] = error
        return values
    }
}
