/// The operator console's own pages' Mustache contexts, read by their properties' names (the
/// layout's values, the CSRF token and `isOperator` among them, come from `ConsolePageContext`).

/// `console-pager`: links to the previous and next page of a list (nil where there is none).
struct ConsolePager: Sendable {
    let page: String
    let previous: String?
    let next: String?
}

/// An audit entry as the dashboard and the audit log show it.
struct AuditLine: Sendable {
    /// A field the entry changed: `before → after`.
    struct Change: Sendable {
        let field: String
        let before: String
        let after: String
        let hasBefore: Bool
        let hasAfter: Bool
    }

    let at: String
    let actor: String
    let action: String
    let target: String
    let changes: [Change]
}

/// `admin-dashboard`: the counts now, the last ten changes and the charts.
struct DashboardValues: Sendable {
    struct Count: Sendable {
        let label: String
        let value: String
    }

    let asOf: String
    let counts: [Count]
    let recent: [AuditLine]
    let charts: [DashboardChart]
}

/// `admin-audit`: audit entries, newest first, filtered by actor and action.
struct AuditPageValues: Sendable {
    let actor: String
    let action: String
    let entries: [AuditLine]
    let none: Bool
    let pager: ConsolePager
}

/// `admin-people`: accounts found by email or id.
struct PeopleListValues: Sendable {
    struct Person: Sendable {
        let id: String
        let email: String
        let role: String
        let status: String
        let created: String
    }

    let query: String
    let people: [Person]
    let none: Bool
    let pager: ConsolePager
}

/// `admin-apps`: apps found by name, bundle id or AppleItemID, and the form that adds one (what
/// the operator entered is kept when it is refused).
struct AdminAppsValues: Sendable {
    struct App: Sendable {
        let id: String
        let name: String
        let bundleId: String
        let availability: String
        let access: String
    }

    struct Entered: Sendable {
        var appleItemId = ""
        var bundleId = ""
        var name = ""
        var developer = ""
    }

    let query: String
    let apps: [App]
    let none: Bool
    let pager: ConsolePager
    let entered: Entered
    let error: String?
}

/// `admin-catalogs`: every app with a product catalog.
struct AdminCatalogsValues: Sendable {
    struct Catalog: Sendable {
        let app: String
        let revision: String
        let onSale: String
        let retired: String
        let modified: String
    }

    let catalogs: [Catalog]
}

/// `admin-product`: one product's definition to edit.
struct AdminProductValues: Sendable {
    let app: String
    let productId: String
    let text: String
    let catalogHref: String
    let action: String
    let error: String?
}
