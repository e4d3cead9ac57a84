import Hummingbird
import SoukApp
import SoukCore
import SoukStore

extension WebSessionStore {
    /// The cookie that carries a website session.
    static var cookieName: String { "souk_session" }

    /// The live session of the browser that sent `request`, if any.
    func session(for request: Request) async throws -> Session? {
        guard let cookie = request.cookies[Self.cookieName]?.value else { return nil }
        return try await find(cookie)
    }

    /// The form of a signed-in POST, checked against the session's CSRF token (403 otherwise). A
    /// body over `maxBytes` is a 413 problem that says so: a form too large is not an expired one.
    func checkedForm(_ request: Request, session: Session, context: some RequestContext,
                     maxBytes: Int = FormBody.maxBytes) async throws -> FormBody {
        let expired = Problem(.forbidden, "The form expired. Reload the page and try again.")
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else { throw expired }
        let body = try await request.collectBody(upTo: maxBytes)
        guard case .success(let form) = FormBody.parse(String(buffer: body)),
              let field = form["csrf_token"], ConstantTime.equal(field, session.csrfToken) else {
            throw expired
        }
        return form
    }
}

