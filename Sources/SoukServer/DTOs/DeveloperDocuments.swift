import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `GET /api/v1/developer/apps`: the organisation's marketplace apps and in-app catalogs.
struct DeveloperAppList: Codable, Sendable, Equatable {
    var apps: [App]
    var catalogs: [String]

    struct App: Codable, Sendable, Equatable {
        var appleItemId: String
        var bundleId: String
        var name: String
        var versions: Int
    }

    init(apps: [DeveloperAppSummary], catalogs: [String]) {
        self.apps = apps.map { App(appleItemId: String($0.appleItemId), bundleId: $0.bundleId, name: $0.name, versions: $0.versions) }
        self.catalogs = catalogs
    }
}

/// One version of an app with where it stands in review (`in_review`, `released`, `rejected`).
struct DeveloperVersionDocument: Codable, Sendable, Equatable {
    var appleItemId: String
    var appleVersionId: String
    var shortVersionString: String
    var bundleVersion: String
    var reviewState: String
    /// Why it was rejected (only on `rejected`).
    var reviewReason: String?
    var reviewedAt: String?
    var withdrawn: Bool
    var releaseDate: String

    init(_ version: DeveloperVersionSummary) {
        appleItemId = String(version.appleItemId)
        appleVersionId = String(version.appleVersionId)
        shortVersionString = version.shortVersionString
        bundleVersion = version.bundleVersion
        reviewState = version.reviewState.rawValue
        reviewReason = version.reviewReason
        reviewedAt = version.reviewedAt.map(RFC3339.format)
        withdrawn = version.withdrawn
        releaseDate = RFC3339.format(version.releaseDate)
    }
}

/// `GET …/apps/<appleItemId>/versions`.
struct DeveloperVersionList: Codable, Sendable, Equatable {
    var versions: [DeveloperVersionDocument]
}

/// What applying a catalog did (or, with `dryRun`, would do): the diff's lines.
struct DeveloperCatalogApplyDocument: Codable, Sendable, Equatable {
    var app: String
    var dryRun: Bool
    /// True when something was written.
    var applied: Bool
    /// The catalog's revision after the call; absent while the app has no catalog.
    var revision: Int?
    var changes: [String]

    init(_ report: CatalogApplyReport) {
        app = report.app
        dryRun = report.dryRun
        applied = report.applied
        revision = report.revision
        // An empty list says "no change" (the diff's own text for it is a line of its own).
        changes = report.diff.isEmpty ? [] : report.diff.lines
    }
}

/// One purchase of the catalog; the buyer by the app's account token, never by email.
struct DeveloperPurchaseDocument: Codable, Sendable, Equatable {
    var paymentId: String
    var accountToken: String
    var productId: String
    var productType: String
    var store: String
    var status: String
    var environment: String?
    var transactionId: String?
    var originalTransactionId: String?
    var purchaseDate: String?
    var expiresDate: String?
    var revokedAt: String?
    var quantity: Int
    var createdAt: String

    init(_ item: DeveloperPurchase) {
        let purchase = item.purchase
        paymentId = purchase.paymentId.uuidString.lowercased()
        accountToken = item.accountToken.uuidString.lowercased()
        productId = purchase.productId
        productType = purchase.productType.rawValue
        store = purchase.store.rawValue
        status = purchase.status.rawValue
        environment = purchase.environment?.rawValue
        transactionId = purchase.transactionId
        originalTransactionId = purchase.originalTransactionId
        purchaseDate = purchase.purchaseDate.map(RFC3339.format)
        expiresDate = purchase.expiresDate.map(RFC3339.format)
        revokedAt = purchase.revokedAt.map(RFC3339.format)
        quantity = purchase.quantity
        createdAt = RFC3339.format(purchase.createdAt)
    }
}

/// One lifecycle event of the catalog; the buyer by the app's account token.
struct DeveloperEventDocument: Codable, Sendable, Equatable {
    var id: String
    var type: String
    var source: String
    var environment: String
    var accountToken: String
    var occurredAt: String
    var productId: String?
    var entitlementId: String?
    var store: String?
    var transactionId: String?
    var expiresAt: String?

    init(_ item: DeveloperEvent) {
        let event = item.event
        id = event.id.uuidString.lowercased()
        type = event.type.rawValue
        source = event.source.rawValue
        environment = event.environment.rawValue
        accountToken = item.accountToken.uuidString.lowercased()
        occurredAt = RFC3339.format(event.occurredAt)
        productId = event.productId
        entitlementId = event.entitlementId
        store = event.store
        transactionId = event.transactionId
        expiresAt = event.expiresAt.map(RFC3339.format)
    }
}

/// A page of a list: `nextCursor` is null on the last page (and always present).
struct DeveloperPageDocument<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    var items: [Item]
    var nextCursor: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

/// `POST …/catalogs/<app>/grants`.
struct DeveloperGrantRequest: Codable, Sendable {
    var accountToken: String
    var entitlement: String
    /// RFC 3339 date or date-time; absent: until revoked.
    var until: String?
}

/// A promotional grant; the account by the app's account token.
struct DeveloperGrantDocument: Codable, Sendable, Equatable {
    var id: String
    var app: String
    var accountToken: String
    var entitlement: String
    var startsAt: String
    var until: String?
    var revokedAt: String?

    init(_ made: DeveloperGrant) {
        id = made.grant.id.uuidString.lowercased()
        app = made.grant.app
        accountToken = made.accountToken.uuidString.lowercased()
        entitlement = made.grant.entitlementId
        startsAt = RFC3339.format(made.grant.startsAt)
        until = made.grant.expiresAt.map(RFC3339.format)
        revokedAt = made.grant.revokedAt.map(RFC3339.format)
    }
}

/// `POST …/catalogs/<app>/webhooks`.
struct DeveloperWebhookRequest: Codable, Sendable {
    var url: String
    /// The HMAC key of `Souk-Signature`, at least 16 characters; never shown again.
    var secret: String
}

/// A webhook endpoint (its secret is never shown).
struct DeveloperWebhookDocument: Codable, Sendable, Equatable {
    var id: String
    var app: String
    var url: String
    var createdAt: String

    init(_ endpoint: WebhookEndpoint) {
        id = endpoint.id.uuidString.lowercased()
        app = endpoint.app
        url = endpoint.url
        createdAt = RFC3339.format(endpoint.createdAt)
    }
}

/// `GET …/catalogs/<app>/webhooks`.
struct DeveloperWebhookList: Codable, Sendable, Equatable {
    var webhooks: [DeveloperWebhookDocument]
}
