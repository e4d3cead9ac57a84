import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The OpenID Provider around the authorization server (OpenID Connect Core 1.0 and Discovery 1.0;
/// docs/oauth.md, "OpenID Connect"): the discovery document and the UserInfo endpoint. ID tokens
/// themselves come from `IDTokenIssuer`, answered by the token endpoint.
extension OAuthController {
    func addOpenIDRoutes(to router: Router<Context>) {
        router.get(".well-known/openid-configuration", use: openIDConfiguration)
        router.get("oauth/userinfo", use: userInfo)
        router.post("oauth/userinfo", use: userInfo)
    }

    /// The OAuth metadata with what OpenID Connect Discovery 1.0 §3 adds. Only the authorization
    /// code flow (PKCE, public clients) is offered; requests by reference are not.
    var openIDMetadata: [String: Any] {
        serverMetadata.merging([
            "userinfo_endpoint": issuer + "/oauth/userinfo",
            "scopes_supported": [OpenIDScope.openid, OpenIDScope.email, TokenStoreScope.all],
            "response_modes_supported": ["query"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "email", "email_verified"],
            "claims_parameter_supported": false,
            "request_parameter_supported": false,
            "request_uri_parameter_supported": false,
        ]) { $1 }
    }

    /// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4).
    @Sendable func openIDConfiguration(_ request: Request, context: Context) async throws -> Response {
        Response.json(openIDMetadata, cacheControl: "public, max-age=3600")
    }

    /// `GET`/`POST /oauth/userinfo` (OpenID Connect Core 1.0 §5.3): the claims about the person
    /// behind an access token granted `openid` — `sub`, and with `email` also `email` and
    /// `email_verified`. Refusals carry RFC 6750 §3's challenge (401 `invalid_token`, 403
    /// `insufficient_scope`) with an RFC 9457 problem as the body.
    @Sendable func userInfo(_ request: Request, context: Context) async throws -> Response {
        guard let token = CommerceToken.find(authorization: request.headers[.authorization], query: [:]) else {
            return userInfoRefusal(.unauthorized, error: nil, "This request needs an access token (Authorization: Bearer …).",
                                   request: request, context: context)
        }
        guard !CommerceToken.isJWT(token), case .success(let found) = try await tokens.authenticateAccount(accessToken: token) else {
            return userInfoRefusal(.unauthorized, error: "invalid_token",
                                   "The access token is not valid: unknown, expired, revoked, or its account is disabled.",
                                   request: request, context: context)
        }
        let scope = found.bearer.scope
        guard OpenIDScope.contains(scope, OpenIDScope.openid) else {
            return userInfoRefusal(.forbidden, error: "insufficient_scope", "The access token was not granted the openid scope.",
                                   request: request, context: context)
        }
        var claims: [String: Any] = ["sub": found.bearer.accountID.uuidString.lowercased()]
        if OpenIDScope.contains(scope, OpenIDScope.email) {
            claims["email"] = found.email
            claims["email_verified"] = false
        }
        return Response.json(claims, cacheControl: "no-store")
    }

    private func userInfoRefusal(_ status: HTTPResponse.Status, error: String?, _ detail: String,
                                 request: Request, context: Context) -> Response {
        var response = ProblemMiddleware<BasicRequestContext>.response(Problem(status, detail), request: request, id: context.id)
        response.headers[.wwwAuthenticate] = "Bearer realm=\"\(issuer)\"" + (error.map { ", error=\"\($0)\"" } ?? "")
        return response
    }
}
