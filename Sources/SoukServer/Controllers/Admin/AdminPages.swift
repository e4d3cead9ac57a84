/// The operator console's own pages' Mustache contexts, read by their properties' names (the
/// layout's values, the CSRF token and `isOperator` among them, come from `PageContext`).

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

/// `admin-review-queue`: versions waiting for review, the longest-waiting first.
struct ReviewQueueValues: Sendable {
    struct Version: Sendable {
        let app: String
        let version: String
        let short: String
        let build: String
        let developer: String
        let uploaded: String
        let href: String
    }

    let versions: [Version]
    let notice: String?
}

/// `admin-review-version`: a version's facts, what changed since the previous release, and the
/// approve and reject forms.
struct ReviewVersionValues: Sendable {
    struct Fact: Sendable {
        let name: String
        let value: String
    }

    let app: String
    let short: String
    let item: String
    let version: String
    let state: String
    let inReview: Bool
    let facts: [Fact]
    let diff: [DiffLineValues]
    let approveAction: String
    let rejectAction: String
    let maxReason: String
    let error: String?
    /// Why the version was rejected, once it is.
    let reason: String?
    /// The release it is compared with; nil for an app's first.
    let previous: String?
}

/// `admin-clients`: the registered OAuth clients and the form that registers one (what the
/// operator entered is kept when it is refused).
struct ClientsValues: Sendable {
    struct Client: Sendable {
        let clientId: String
        let name: String
        let kind: String
        let app: String
        let redirectURIs: String
        let created: String
    }

    struct Kind: Sendable {
        let kind: String
        let selected: Bool
    }

    let clients: [Client]
    let kinds: [Kind]
    let formName: String
    let formRedirectURIs: String
    let formApp: String
    let notice: String?
    let error: String?
}

/// `admin-extensions`: an app's App Store renewal-date extension requests and the form of a mass
/// extension.
struct ExtensionsValues: Sendable {
    struct Subscription: Sendable {
        let id: String
        let sku: String
        let selected: Bool
    }

    struct Reason: Sendable {
        let code: String
        let label: String
        let selected: Bool
    }

    struct Environment: Sendable {
        let name: String
        let selected: Bool
    }

    struct Request: Sendable {
        let requested: String
        let kind: String
        let request: String
        let product: String
        let subscription: String
        let days: String
        let reason: String
        let status: String
        let succeeded: String
        let failed: String
        let moved: String
        let by: String
        let detail: String
        let environment: String
    }

    let app: String
    let catalogHref: String
    let action: String
    let canExtend: Bool
    let subscriptions: [Subscription]
    let reasons: [Reason]
    let environments: [Environment]
    let days: String
    let storefronts: String
    let requests: [Request]
    let notice: String?
    let error: String?
}

/// `admin-extension-confirm`: what a mass extension will ask of Apple, to confirm.
struct ExtensionConfirmValues: Sendable {
    let app: String
    let product: String
    let appleProductId: String
    let days: String
    let reason: String
    let reasonLabel: String
    let environment: String
    /// The storefronts as the form sends them again (comma-separated; empty: every one).
    let storefronts: String
    let storefrontsText: String
    let action: String
    let pageHref: String
}

/// `admin-integrations`: App Store Connect events, the stores' health, the install verification
/// keys, and one app's store notifications and webhook deliveries.
struct IntegrationsValues: Sendable {
    struct Event: Sendable {
        let type: String
        let state: String
        let attempts: String
        let received: String
        let error: String
    }

    struct Store: Sendable {
        let app: String
        let store: String
        let ok: String
        let error: String
        let state: String
    }

    struct App: Sendable {
        let app: String
        let selected: Bool
    }

    struct Key: Sendable {
        let owner: String
        let kid: String
        let created: String
        let state: String
    }

    struct Notification: Sendable {
        let store: String
        let type: String
        let environment: String
        let status: String
        let summary: String
        let received: String
    }

    struct Delivery: Sendable {
        let event: String
        let type: String
        let url: String
        let status: String
        let attempts: String
        let last: String
        let created: String
        /// The app the redelivery form names.
        let app: String
    }

    let ascEvents: [Event]
    let stores: [Store]
    let apps: [App]
    let keys: [Key]
    /// The app whose notifications and deliveries are shown (nil: no app has a catalog).
    var app: String?
    var notifications: [Notification] = []
    var deliveries: [Delivery] = []
    var notice: String?
    var error: String?
    /// A new install verification key's public key, shown once after a rotation.
    var publicKey: String?
}

/// `admin-app-store-order`: Apple's Look Up Order ID, and the accounts and purchases it names.
struct AppStoreOrderValues: Sendable {
    struct Transaction: Sendable {
        let transaction: String
        let product: String
        let purchased: String
        let status: String
        /// The account that holds the purchase, when Souk has it.
        let person: String?
        let email: String?
    }

    let order: String
    let app: String
    var transactions: [Transaction] = []
    /// Apple does not know the order.
    var unknown = false
    var error: String?
}

/// `admin-person`: an account's facts, timeline, devices, live licenses, purchases, orders, plans
/// and grants, and the forms the session's role may use on it.
struct PersonValues: Sendable {
    struct Reset: Sendable {
        let url: String
        let expires: String
    }

    struct TimelineLine: Sendable {
        let at: String
        let kind: String
        let text: String
    }

    struct Device: Sendable {
        let clientId: String
        let signedIn: String
        let lastUsed: String
    }

    struct License: Sendable {
        let license: String
        let app: String
        let device: String
        let expires: String
    }

    struct Purchase: Sendable {
        let app: String
        let product: String
        let store: String
        let status: String
        let date: String
        let revoked: String
        /// A Google Play purchase is refunded at Google from here; other stores refund in their own consoles.
        let refundable: Bool
        let subscription: Bool
        let payment: String
    }

    struct Order: Sendable {
        let app: String
        let price: String
        let status: String
        let date: String
        let processor: String
        let refundable: Bool
        let order: String
    }

    struct Plan: Sendable {
        let id: String
        let product: String
        let price: String
        let status: String
        let started: String
        let processor: String
        let refundable: Bool
    }

    struct Grant: Sendable {
        let id: String
        let app: String
        let entitlement: String
        let environment: String
        let starts: String
        let until: String
        let reason: String
        let state: String
        let revocable: Bool
    }

    struct App: Sendable { let app: String }

    let id: String
    /// The account's id again, as the rows' forms name it.
    let person: String
    let email: String
    let personRole: String
    let status: String
    let disabled: Bool
    let environment: String
    let created: String
    let twoFactor: String
    let devices: [Device]
    let licenses: [License]
    let purchases: [Purchase]
    let orders: [Order]
    let plans: [Plan]
    let grants: [Grant]
    let timeline: [TimelineLine]
    let timelineCount: String
    /// The apps whose entitlements the session may grant.
    let apps: [App]
    let canDisable: Bool
    let canGrant: Bool
    let canReset: Bool
    let canSignOut: Bool
    let canExtend: Bool
    let notice: String?
    let error: String?
    /// A password reset link just made, shown this once.
    let resetLink: Reset?
}
