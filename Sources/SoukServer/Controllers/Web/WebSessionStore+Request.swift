import Hummingbird
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

    /// The form of a signed-in POST, checked against the session's CSRF token (403 otherwise).
    func checkedForm(_ request: Request, session: Session, context: some RequestContext) async throws -> FormBody {
        guard case .success(let form) = try await FormBody.read(request, context: context),
              let field = form["csrf_token"], ConstantTime.equal(field, session.csrfToken) else {
            throw Problem(.forbidden, "The form expired. Reload the page and try again.")
        }
        return form
    }
}

extension CatalogStore {
    /// The marketplace's display name for pages.
    func marketplaceName(keys: SoukKeys) async throws -> String {
        try await marketplace(defaultKeyId: keys.installVerificationKeyId).name
    }
}
