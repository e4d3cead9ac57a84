import Mustache

/// What the operator console's layout and navigation (`{{> console-nav}}`) show on every page.
struct ConsoleLayout: Sendable {
    var title: String
    var marketplace: String
    /// The session's CSRF token, which every form of the page carries.
    var csrfToken: String
    var operatorEmail: String
    var role: String
    var isOperator: Bool
    /// Two-factor sign-in is required and not on yet: the navigation offers only its enrolment.
    var mustEnrol: Bool
}

/// What the developer console's layout and navigation (`{{> developer-nav}}`) show on every page.
struct DeveloperConsoleLayout: Sendable {
    var title: String
    var marketplace: String
    var csrfToken: String
    var memberEmail: String
    var developerName: String
    var memberRole: String
    var isOwner: Bool
    var mustEnrol: Bool
}

/// A console page's Mustache context: the layout's typed values, then the page's own `values`
/// (a layout value wins over a page value of the same name). For every list in `values`,
/// `has-<name>` says whether it has rows (`{{#has-x}}` opens a table only then).
struct ConsolePageContext<Layout: Sendable>: MustacheParent {
    let layout: Layout
    let values: [String: Any]

    func child(named name: String) -> Any? {
        if let value = Mirror(reflecting: layout).children.first(where: { $0.label == name })?.value { return value }
        if name.hasPrefix("has-"), let list = values[String(name.dropFirst(4))] as? [Any] { return !list.isEmpty }
        return values[name]
    }
}
