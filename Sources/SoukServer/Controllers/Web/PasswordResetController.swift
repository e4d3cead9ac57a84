import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The page a password reset link opens (`/reset/<token>`, made in the console; docs/web.md, "Reset
/// links"): the person chooses their own password, twice. The form is signed out, so it carries the
/// double-submit CSRF token of the sign-in form (`WebController.formCookie`). A link works once,
/// for 24 hours; an unknown, used, replaced or expired link gets one calm 404 page. Setting the
/// password ends the account's sessions and tokens again and sends the person to sign in.
struct PasswordResetController<Context: RequestContext> {
    let links: PasswordResetLinks
    let catalog: CatalogStore
    let tokens: TokenStore
    let sessions: WebSessionStore
    let keys: SoukKeys
    let pages: Pages
    let secure: Bool

    func addRoutes(to router: Router<Context>) {
        router.get("reset/:token", use: page)
        router.post("reset/:token", use: submit)
    }

    /// The link's path for a token.
    static func path(token: String) -> String { "/reset/" + token }

    /// The form, for a link that still works.
    @Sendable func page(_ request: Request, context: Context) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        guard let accountID = try await links.account(token: token), let account = try await catalog.people.account(id: accountID) else {
            return try await invalid()
        }
        return try await form(token: token, email: account.email, error: nil, status: .ok)
    }

    /// Sets the password the person chose and takes the link.
    @Sendable func submit(_ request: Request, context: Context) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        guard let accountID = try await links.account(token: token), let account = try await catalog.people.account(id: accountID) else {
            return try await invalid()
        }
        guard case .success(let form) = try await FormBody.read(request, context: context),
              let cookie = request.cookies[WebController<SoukRequestContext>.formCookie]?.value, let field = form["csrf_token"],
              ConstantTime.equal(cookie, field) else {
            return try await self.form(token: token, email: account.email, error: "The form expired. Please try again.", status: .forbidden)
        }
        let new = form.values["new_password"] ?? ""
        guard new == form.values["confirm_password"] ?? "" else {
            return try await self.form(token: token, email: account.email, error: "The new password and its confirmation differ.",
                                       status: .badRequest)
        }
        let hash: String
        do {
            hash = try await PasswordHasher.hash(new)
        } catch let rule as PasswordRuleError {
            return try await self.form(token: token, email: account.email, error: rule.description, status: .badRequest)
        }
        guard let used = try await links.use(token: token, passwordHash: hash) else { return try await invalid() }
        try await tokens.revokeAll(accountID: used)
        try await sessions.deleteAll(accountID: used)
        return WebPage.seeOther("/signin?reset=done")
    }

    private func form(token: String, email: String, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let csrf = OpaqueToken.generate(.csrf)
        let values = PasswordResetValues(title: "Choose a new password", marketplace: try await marketplaceName(), email: email,
                                         action: Self.path(token: token), csrfToken: csrf, error: error)
        // Limited to this link's path: the cookie goes nowhere else.
        let cookie = Cookie(name: WebController<SoukRequestContext>.formCookie, value: csrf, maxAge: 1800, path: Self.path(token: token),
                            secure: secure, httpOnly: true, sameSite: .strict)
        return pages.response(.passwordReset, values, status: status, extraHeaders: [.setCookie: cookie.description])
    }

    private func invalid() async throws -> Response {
        pages.response(.passwordResetInvalid, PlainPageValues(title: "Link not valid", marketplace: try await marketplaceName()), status: .notFound)
    }

    private func marketplaceName() async throws -> String {
        try await catalog.marketplaceName(keys: keys)
    }
}
