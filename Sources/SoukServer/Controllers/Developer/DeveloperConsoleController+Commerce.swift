import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An in-app catalog's promotional grants (made and revoked by account token) and its purchases
/// (sales, subscriptions, refunds; read-only), buyers named by account token, never by email.
extension DeveloperConsoleController {
    func addCommerceRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("catalog/:app/grants", use: grantsPage)
        routes.members.post("catalog/:app/grants", use: grant)
        routes.members.post("grants/:grant/revoke", use: revokeGrant)
        routes.members.get("catalog/:app/purchases", use: purchasesPage)
    }

    @Sendable func grantsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let notice: String? = switch request.uri.queryParameters["done"] {
        case "granted": "Granted."
        case "revoked": "Grant revoked."
        default: nil
        }
        return try await grantsList(session: session, app: context.parameters.get("app") ?? "", notice: notice, error: nil,
                                    entered: [:], status: .ok)
    }

    func grantsList(session: DeveloperSession, app: String, notice: String?, error: String?, entered: [String: String],
                    status: HTTPResponse.Status) async throws -> Response {
        let format = WebPage.format
        let state = try await services.ownership.catalog(app, for: session.actor)
        let at = services.now()
        let lines = try await DeveloperGrantOperations(services: services).list(actor: session.actor, app: app)
        let app = state.catalog.app
        let values = DeveloperGrantsValues(
            app: app, catalogHref: Self.catalogPath(app), action: Self.catalogPath(app) + "/grants",
            entitlements: state.catalog.entitlements.map { .init(id: $0.id, selected: $0.id == entered["entitlement"]) },
            accountToken: entered["accountToken"] ?? "", until: entered["until"] ?? "", reason: entered["reason"] ?? "",
            grants: lines.map { line in
                .init(id: line.grant.id.uuidString.lowercased(), accountToken: line.accountToken.uuidString.lowercased(),
                      entitlement: line.grant.entitlementId, starts: format(line.grant.startsAt),
                      until: line.grant.expiresAt.map(format) ?? "until revoked", reason: line.grant.reason ?? "",
                      state: line.grant.revokedAt != nil ? "revoked" : line.grant.isActive(at: at) ? "active" : "ended",
                      revocable: line.grant.revokedAt == nil && line.grant.isActive(at: at))
            },
            notice: notice, error: error)
        return try await render(.developerGrants, session: session, title: "Grants · \(app)", page: values, status: status)
    }

    /// Grants an entitlement to the person with an account token: entitlement, reason, optional until.
    @Sendable func grant(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        let app = context.parameters.get("app") ?? ""
        let entered = ["accountToken": (form["accountToken"] ?? "").trimmingCharacters(in: .whitespaces),
                       "entitlement": form["entitlement"] ?? "", "until": (form["until"] ?? "").trimmingCharacters(in: .whitespaces),
                       "reason": form["reason"] ?? ""]
        func refuse(_ message: String) async throws -> Response {
            try await grantsList(session: session, app: app, notice: nil, error: message, entered: entered, status: .badRequest)
        }
        var until: Date?
        if let text = entered["until"], !text.isEmpty {
            guard let parsed = AdminController<Context>.parseUntil(text) else {
                // Ownership first: another organisation's catalog is 404, whatever the form says.
                _ = try await services.ownership.catalog(app, for: session.actor)
                return try await refuse("Until must be an RFC 3339 date (2027-01-01) or date-time (2027-01-01T00:00:00Z).")
            }
            until = parsed
        }
        do {
            try await DeveloperGrantOperations(services: services).grant(actor: session.actor, app: app, accountToken: entered["accountToken"] ?? "",
                                                                         entitlement: entered["entitlement"] ?? "", until: until,
                                                                         reason: entered["reason"] ?? "")
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await refuse(message)
        }
        return WebPage.seeOther(Self.catalogPath(app) + "/grants?done=granted")
    }

    @Sendable func revokeGrant(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await memberForm(request, context: context)
        guard let id = context.parameters.get("grant").flatMap(UUID.init(uuidString:)) else {
            throw DeveloperOperationError.notFound("No grant of yours has this id.")
        }
        let app = try await DeveloperGrantOperations(services: services).revoke(actor: session.actor, grant: id)
        return WebPage.seeOther(Self.catalogPath(app) + "/grants?done=revoked")
    }

    /// `/developer/catalog/<app>/purchases`: the newest 200 verified purchases, read-only.
    @Sendable func purchasesPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let app = context.parameters.get("app") ?? ""
        let lines = try await DeveloperPurchaseList(services: services)(actor: session.actor, app: app)
        let format = WebPage.format
        return try await render(.developerPurchases, session: session, title: "Purchases · \(app)", page: DeveloperPurchasesValues(
            app: app, catalogHref: Self.catalogPath(app),
            purchases: lines.map { line in
                let purchase = line.purchase
                let state: String = if let revoked = purchase.revokedAt {
                    "refunded or revoked \(format(revoked))" + (purchase.revocationReason.map { " (\($0))" } ?? "")
                } else if let subscription = purchase.subscriptionState {
                    subscription.rawValue + (purchase.expiresDate.map { " until \(format($0))" } ?? "")
                } else {
                    "bought"
                }
                return .init(accountToken: line.accountToken.uuidString.lowercased(), product: purchase.productId,
                             type: purchase.productType.rawValue, store: purchase.store.rawValue, environment: purchase.environment?.rawValue ?? "",
                             purchased: purchase.purchaseDate.map(format) ?? format(purchase.createdAt), state: state)
            }))
    }
}
