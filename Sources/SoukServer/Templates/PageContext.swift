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

/// A page's Mustache context: the layout's typed values (`ConsoleLayout`, `DeveloperConsoleLayout`,
/// `PublicLayout`), then the page's own (a layout value wins over a page value of the same name).
/// The page is a typed value (`AppPageValues`, `AdminPages.swift`, `DeveloperConsolePages.swift`,
/// `StorefrontPageValues.swift`), read by its stored properties' names. For
/// every list of the page, `has-<name>` says whether it has rows (`{{#has-x}}` opens a table only then).
struct PageContext<Layout: Sendable, Page: Sendable>: MustacheParent {
    let layout: Layout
    let page: Page

    func child(named name: String) -> Any? {
        if let value = Self.property(name, of: layout) { return value }
        if name.hasPrefix("has-"), let list = Self.property(String(name.dropFirst(4)), of: page) as? [Any] { return !list.isEmpty }
        return Self.property(name, of: page)
    }

    /// A stored property of a typed value by name; an optional that is nil is no value, so that
    /// `{{#name}}` does not open.
    private static func property(_ name: String, of value: Any) -> Any? {
        guard let child = Mirror(reflecting: value).children.first(where: { $0.label == name })?.value else { return nil }
        let wrapped = Mirror(reflecting: child)
        guard wrapped.displayStyle == .optional else { return child }
        return wrapped.children.first?.value
    }
}
