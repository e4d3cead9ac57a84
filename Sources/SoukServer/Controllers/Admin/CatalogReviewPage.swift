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
