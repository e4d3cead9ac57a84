import Hummingbird
import SoukStore

extension WebSessionStore {
    /// The form of a console POST whose session a console middleware let in (`cookie`): 403 when
    /// the session is gone or without its CSRF token, 413 for a body over `maxBytes`.
    func consoleForm(_ request: Request, cookie: String, context: some RequestContext,
                     maxBytes: Int = FormBody.maxBytes) async throws -> FormBody {
        guard let stored = try await find(cookie) else { throw Problem(.forbidden, "Sign in again.") }
        return try await checkedForm(request, session: stored, context: context, maxBytes: maxBytes)
    }
}
