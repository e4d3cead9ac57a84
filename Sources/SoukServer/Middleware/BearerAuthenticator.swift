import HTTPTypes
import Hummingbird
import SoukStore

/// The bearer rule every protected endpoint shares (MarketplaceKit's “Installing apps from an alternative marketplace”, MarketplaceKit's “Reauthenticating a person”): no token where one is needed →
/// **401** with `WWW-Authenticate: Bearer`; a token that is present but unknown, expired, revoked
/// or of a disabled account → **403**.
struct BearerAuthenticator: Sendable {
    let tokens: TokenStore
    let realm: String

    /// The account behind the request's bearer token; nil when the request carries none.
    /// Throws the 403 for a token that is present but not valid.
    func optionalBearer(_ request: Request) async throws -> TokenStore.Bearer? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        switch try await tokens.authenticate(accessToken: token) {
        case .success(let bearer): return bearer
        case .failure: throw BearerChallenge(status: .forbidden, realm: realm)
        }
    }

    /// The account behind the request's bearer token; 401 without one, 403 with an invalid one.
    func requireBearer(_ request: Request) async throws -> TokenStore.Bearer {
        guard let bearer = try await optionalBearer(request) else { throw BearerChallenge(status: .unauthorized, realm: realm) }
        return bearer
    }
}

/// A 401 or 403 problem with the `WWW-Authenticate` challenge RFC 6750 §3 describes.
struct BearerChallenge: HTTPResponseError {
    let status: HTTPResponse.Status
    let realm: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let detail = status == .unauthorized
            ? "This request needs a bearer token (Authorization: Bearer …)."
            : "The bearer token is not valid: unknown, expired, revoked, or its account is disabled."
        var response = ProblemMiddleware<BasicRequestContext>.response(Problem(status, detail), request: request, id: context.id)
        response.headers[.wwwAuthenticate] = status == .unauthorized
            ? "Bearer realm=\"\(realm)\""
            : "Bearer realm=\"\(realm)\", error=\"invalid_token\""
        return response
    }
}
