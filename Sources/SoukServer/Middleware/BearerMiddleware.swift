import Hummingbird
import SoukStore

/// A request context that carries the bearer of a route group authenticated by `BearerMiddleware`.
protocol BearerRequestContext: RequestContext {
    /// The account and client behind the request's bearer token (set by `BearerMiddleware`).
    var bearer: TokenStore.Bearer? { get set }
}

/// Authenticates every route of a group once, before its handlers: no token → 401, a token that is
/// not valid → 403 (`BearerAuthenticator.requireBearer`); the handlers read `context.bearer`.
struct BearerMiddleware<Context: BearerRequestContext>: RouterMiddleware {
    let authenticator: BearerAuthenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.bearer = try await authenticator.requireBearer(request)
        return try await next(request, context)
    }
}

extension BearerRequestContext {
    /// The bearer `BearerMiddleware` authenticated; 401 on a route outside such a group.
    func requireBearer(realm: String) throws -> TokenStore.Bearer {
        guard let bearer else { throw BearerChallenge(status: .unauthorized, realm: realm) }
        return bearer
    }
}

extension SoukRequestContext: BearerRequestContext {}
