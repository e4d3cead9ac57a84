/// The developer console's own pages' Mustache contexts, read by their properties' names (the
/// layout's values, the CSRF token among them, come from `PageContext`).

/// `developer-home`: the organisation's apps and in-app catalogs.
struct DeveloperHomeValues: Sendable {
    struct App: Sendable {
        let id: String
        let name: String
        let bundleId: String
        let availability: String
    }

    struct Catalog: Sendable {
        let app: String
        let href: String
        let revision: String
        let onSale: String
    }

    let apps: [App]
    let catalogs: [Catalog]
}

/// `developer-keys`: the organisation's API keys, the scopes a new one may have, and a new key's
/// secret, shown once.
struct DeveloperKeysValues: Sendable {
    struct Key: Sendable {
        let id: String
        let name: String
        let scopes: String
        let hint: String
        let lastUsed: String
        let created: String
        let revoked: String
        let live: Bool
    }

    struct Scope: Sendable {
        let value: String
        let field: String
    }

    let keys: [Key]
    let scopes: [Scope]
    let notice: String?
    let error: String?
    let secret: String?
}

/// `developer-webhooks`: a catalog's endpoints, their recent deliveries, and a new endpoint's
/// signing secret, shown once.
struct DeveloperWebhooksValues: Sendable {
    struct Endpoint: Sendable {
        let id: String
        let url: String
        let created: String
    }

    struct Delivery: Sendable {
        let created: String
        let event: String
        let type: String
        let url: String
        let status: String
        let attempts: String
        let last: String
        let next: String
    }

    let app: String
    let catalogHref: String
    let action: String
    /// The URL the person entered, kept when the form is refused.
    let url: String
    let endpoints: [Endpoint]
    let deliveries: [Delivery]
    let notice: String?
    let error: String?
    let secret: String?
}

/// `developer-grants`: a catalog's promotional grants by account token, and the form of a new one
/// (what the person entered is kept when it is refused).
struct DeveloperGrantsValues: Sendable {
    struct Entitlement: Sendable {
        let id: String
        let selected: Bool
    }

    struct Grant: Sendable {
        let id: String
        let accountToken: String
        let entitlement: String
        let starts: String
        let until: String
        let reason: String
        let state: String
        let revocable: Bool
    }

    let app: String
    let catalogHref: String
    let action: String
    let entitlements: [Entitlement]
    let accountToken: String
    let until: String
    let reason: String
    let grants: [Grant]
    let notice: String?
    let error: String?
}

/// `developer-purchases`: a catalog's newest verified purchases, buyers by account token.
struct DeveloperPurchasesValues: Sendable {
    struct Purchase: Sendable {
        let accountToken: String
        let product: String
        let type: String
        let store: String
        let environment: String
        let purchased: String
        let state: String
    }

    let app: String
    let catalogHref: String
    let purchases: [Purchase]
}

/// `developer-sales`: paid-app sales of the organisation's apps, and links to each catalog's purchases.
struct DeveloperSalesValues: Sendable {
    struct Catalog: Sendable {
        let app: String
        let href: String
    }

    struct Sale: Sendable {
        let app: String
        let appHref: String
        let accountToken: String
        let amount: String
        let environment: String
        let paid: String
        let status: String
        let refund: String
    }

    let catalogs: [Catalog]
    let sales: [Sale]
}
