import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Who a payment-provider request acts for: Souk's OAuth access token, or a Souk OpenID Connect ID
/// token (`IDTokenVerifier`), as `Authorization: Bearer`, the `access_token` or `id_token` query
/// parameter (RFC 6750 §2.3), or the same key of Zapp's `ctx` query parameter (`CommerceToken`).
/// Without a valid token the answer is the 401 body of docs/commerce.md with `WWW-Authenticate: Bearer`.
///
/// Tokens and their accounts come from `BearerCache` (no database round trip for a token seen
/// within the refresh interval; a revocation is seen within it).
struct CommerceAuthenticator: Sendable {
    let bearers: BearerCache
    let realm: String
    let idTokens: IDTokenVerifier

    /// The buyer behind the request's token; throws `CommerceUnauthorized` in `style` otherwise.
    func buyer(_ request: Request, style: CommerceUnauthorized.Style = .entitlement) async throws -> PurchaseIntakeService.Buyer {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        guard let token = CommerceToken.find(authorization: request.headers[.authorization], query: query) else {
            throw CommerceUnauthorized(style: style, realm: realm, tokenPresented: false)
        }
        if CommerceToken.isJWT(token) {
            guard let account = try await idTokens.account(idToken: token) else {
                throw CommerceUnauthorized(style: style, realm: realm, tokenPresented: true)
            }
            return PurchaseIntakeService.Buyer(account: account.accountID, email: account.email, sandbox: account.sandbox)
        }
        guard case .success(let account) = try await bearers.account(accessToken: token) else {
            throw CommerceUnauthorized(style: style, realm: realm, tokenPresented: true)
        }
        return PurchaseIntakeService.Buyer(account: account.bearer.accountID, email: account.email, sandbox: account.sandbox)
    }
}

/// The seed's 401: `{"statusText": "Unauthorized", "status": 401}` (entitlements, transactions) or
/// `{"error": "Unauthorized", "status": 401}` (user-purchases), with the RFC 6750 challenge.
struct CommerceUnauthorized: HTTPResponseError {
    enum Style: Sendable {
        case entitlement
        case userPurchases
    }

    let style: Style
    let realm: String
    let tokenPresented: Bool

    var status: HTTPResponse.Status { .unauthorized }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Self.response(style)
        response.headers[.wwwAuthenticate] = tokenPresented
            ? "Bearer realm=\"\(realm)\", error=\"invalid_token\""
            : "Bearer realm=\"\(realm)\""
        return response
    }

    /// The body alone (also the answer of an entitlement the person does not have).
    static func response(_ style: Style) -> Response {
        let body: Data = switch style {
        case .entitlement: WireJSON.encode(EntitlementFailure(statusText: "Unauthorized", status: 401))
        case .userPurchases: WireJSON.encode(UserPurchasesFailure(error: "Unauthorized", status: 401))
        }
        return Response.json(bytes: body, status: .unauthorized, cacheControl: "no-store")
    }
}
