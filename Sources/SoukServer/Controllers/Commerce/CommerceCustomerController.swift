import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `GET /commerce/<app>/customer`: the signed-in person's open entitlements (promotional grants
/// included) and every purchase they made in the app (`CustomerDocument`) — the one call a mobile
/// SDK makes at launch instead of asking entitlement by entitlement.
///
/// Same token as the other payment-provider routes (`CommerceAuthenticator`, the seed's 401); an
/// app without a catalog is a 404 problem. The answer is personal: `Cache-Control: private,
/// no-store`, with an `ETag` of its bytes so a client polling it learns "unchanged" from a `304`.
///
/// `GET /commerce/<app>/account-token` answers `{"accountToken": "<uuid>"}`: the person's stable
/// token in the app, which the app passes as StoreKit's `appAccountToken` and Play Billing's
/// `obfuscatedAccountId` so a purchase says who made it (docs/commerce.md, "Account tokens").
struct CommerceCustomerController<Context: RequestContext> {
    let catalogs: CommerceCatalogCache
    let purchases: PurchaseStore
    let accountTokens: AccountTokenStore
    let authenticator: CommerceAuthenticator
    let entitlements: EntitlementReader

    func addRoutes(to router: Router<Context>) {
        router.get("commerce/:app/customer", use: customer)
        router.get("commerce/:app/account-token", use: accountToken)
    }

    /// Answers the person's account token in the app, made on first request and never changed.
    @Sendable func accountToken(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let token = try await accountTokens.token(account: buyer.account, app: catalog.app)
        return Response.json(bytes: WireJSON.encode(AccountTokenDocument(accountToken: token.uuidString.lowercased())),
                             cacheControl: Self.cacheControl)
    }

    /// The catalog of the path's app, or a 404 problem.
    func catalog(_ context: Context) async throws -> CommerceCatalogState {
        let app = try context.parameters.require("app")
        guard let catalog = try await catalogs.state(app: app) else {
            throw Problem(.notFound, "No in-app products are sold for \(app) here.")
        }
        return catalog
    }

    /// Answers the person's customer document.
    @Sendable func customer(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let snapshot = try await entitlements.snapshot(buyer, catalog: catalog)
        let bought = try await purchases.list(account: buyer.account, app: catalog.app)
        let token = try await accountTokens.token(account: buyer.account, app: catalog.app)
        let document = CustomerDocument(buyer: buyer, accountToken: token, snapshot: snapshot, purchases: bought,
                                        environments: Set(entitlements.environments(buyer, catalog: catalog)))
        let body = WireJSON.encode(document)
        let etag = "\"" + SHA256.hash(data: body).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        if let ifNoneMatch = request.headers[.ifNoneMatch],
           ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Response(status: .notModified, headers: [.eTag: etag, .cacheControl: Self.cacheControl, .vary: "Authorization"])
        }
        var response = Response.json(bytes: body, cacheControl: Self.cacheControl)
        response.headers[.eTag] = etag
        // The same URL answers each person differently.
        response.headers[.vary] = "Authorization"
        return response
    }

    static var cacheControl: String { "private, no-store" }
}
