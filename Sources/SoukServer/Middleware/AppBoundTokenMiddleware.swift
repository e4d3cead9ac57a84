import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// Tokens stay in their app (docs/oauth.md, "App-bound tokens"): an access token issued to a
/// client registered with an app acts only at `/commerce/<that app>/…` and at `/api/v1/…`. Anywhere
/// else the request is answered `401` with the payment-provider API's body
/// (`{"statusText": "Unauthorized", "status": 401}`, or the user-purchases shape there) and an
/// `invalid_token` challenge, before any handler sees it. Tokens of unregistered clients
/// (MarketplaceKit's devices) and of clients without an app are not affected.
///
/// The token is found where the payment-provider API finds it (`CommerceToken`: the
/// `Authorization` header, `access_token`, `ctx`) and looked up in `BearerCache`, so the handler's
/// own lookup that follows is answered from memory.
struct AppBoundTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let bearers: BearerCache
    let realm: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/api/v1/") { return try await next(request, context) }
        var query: [String: String] = [:]
        if request.uri.query != nil {
            for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        }
        guard let token = CommerceToken.find(authorization: request.headers[.authorization], query: query),
              case .success(let account) = try await bearers.account(accessToken: token), let app = account.bearer.app,
              Self.commerceApp(of: path) != app else {
            return try await next(request, context)
        }
        let style: CommerceUnauthorized.Style = path.hasSuffix("/user-purchases") ? .userPurchases : .entitlement
        var response = CommerceUnauthorized.response(style)
        response.headers[.wwwAuthenticate] = "Bearer realm=\"\(realm)\", error=\"invalid_token\", error_description=\"This token is bound to another app.\""
        return response
    }

    /// `APP` of `/commerce/APP/…`, percent-decoded; nil for any other path.
    static func commerceApp(of path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4, segments[0].isEmpty, segments[1] == "commerce" else { return nil }
        return String(segments[2]).removingPercentEncoding
    }
}
