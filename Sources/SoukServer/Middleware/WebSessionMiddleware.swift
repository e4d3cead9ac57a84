import Hummingbird
import SoukApp
import SoukStore

/// A request context that carries the website's signed-in session.
protocol WebSessionRequestContext: RequestContext {
    /// Set by `WebSessionMiddleware` on the routes that need a signed-in person (nil elsewhere).
    var webSession: WebSessionStore.Session? { get set }
}

/// Lets only a signed-in person through a route group of the website (the account pages, Install
/// and Buy, a TV's sign-in); the handlers read `context.requireWebSession()`. Signed out, the
/// answer is the sign-in page: with `returnHere`, one that comes back to this page afterwards (a GET
/// keeps its query, so a TV's code survives the detour).
struct WebSessionMiddleware<Context: WebSessionRequestContext>: RouterMiddleware {
    let sessions: WebSessionStore
    var returnHere = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let session = try await sessions.session(for: request) else {
            guard returnHere else { return WebPage.seeOther("/signin") }
            let query = request.method == .get ? request.uri.query : nil
            return WebPage.seeOther(SignInReturn.signInURL(returningTo: request.uri.path, query: query))
        }
        var context = context
        context.webSession = session
        return try await next(request, context)
    }
}

extension WebSessionRequestContext {
    /// The session `WebSessionMiddleware` let in. A handler registered outside its route groups has
    /// none: a programming error, answered 500.
    func requireWebSession() throws -> WebSessionStore.Session {
        guard let webSession else { throw HTTPError(.internalServerError, message: "This page is not behind the sign-in check.") }
        return webSession
    }
}
extension SoukRequestContext: WebSessionRequestContext {}
