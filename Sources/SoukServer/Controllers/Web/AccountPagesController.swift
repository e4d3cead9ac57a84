import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// What a person changes on their account page (`AccountSelfService`): their password, membership
/// renewals (cancel and resume, through Stripe when Stripe bills the plan), signing out everywhere,
/// and deleting the account. Every form is signed in and carries the session's CSRF token; a plan
/// id in a form selects only a plan of the signed-in account. The current password asked by the
/// password change and the deletion counts against the account's sign-in throttle.
struct AccountPagesController<Context: WebSessionRequestContext> {
    let account: AccountSelfService
    let sessions: WebSessionStore
    let throttle: LoginThrottle
    let pages: Pages
    /// Whether the site is served over HTTPS (the cookie that ends the session is `Secure` then).
    let secure: Bool
    let marketplaceName: @Sendable () async throws -> String

    func addRoutes(to router: Router<Context>) {
        let signedIn = router.group("account").add(middleware: WebSessionMiddleware(sessions: sessions))
        signedIn.post("password", use: changePassword)
        signedIn.post("sign-out-everywhere", use: signOutEverywhere)
        signedIn.post("delete", use: deleteAccount)
        signedIn.post("plans/:id/cancel") { request, context in try await setRenewal(request, context, renew: false) }
        signedIn.post("plans/:id/resume") { request, context in try await setRenewal(request, context, renew: true) }
    }

    /// A signed-in form: the session `WebSessionMiddleware` let in and the form's fields, its CSRF token checked.
    func signedInForm(_ request: Request, _ context: Context) async throws -> (WebSessionStore.Session, FormBody) {
        let session = try context.requireWebSession()
        return (session, try await sessions.checkedForm(request, session: session, context: context))
    }

    static func back(_ notice: String) -> Response {
        WebPage.seeOther("/account?notice=\(notice)")
    }

    /// `POST /account/password`: the current password, then the new one twice. Other browsers are
    /// signed out (this one stays); devices keep their tokens — "Sign out everywhere" ends those too.
    @Sendable func changePassword(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await signedInForm(request, context)
        let account = session.account
        switch try await checkPassword(form.values["current_password"] ?? "", of: account) {
        case .throttled(let wait): return try await tooManyAttempts(wait)
        case .wrong: return Self.back("password-wrong")
        case .right: break
        }
        let new = form.values["new_password"] ?? ""
        guard new == form.values["confirm_password"] ?? "" else { return Self.back("password-mismatch") }
        let hash: String
        do { hash = try await PasswordHasher.hash(new) } catch is PasswordRuleError { return Self.back("password-rules") }
        try await self.account.setPassword(hash: hash, account: account.id, keeping: request.cookies[WebSessionStore.cookieName]?.value ?? "")
        return Self.back("password-changed")
    }

    /// `POST /account/sign-out-everywhere`: every device's tokens and every browser session, this one included.
    @Sendable func signOutEverywhere(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await signedInForm(request, context)
        try await account.signOutEverywhere(session.account.id)
        return WebPage.seeOther("/signin?signed-out=everywhere")
    }

    /// `POST /account/plans/<id>/cancel|resume`: renewal off or back on for one of the account's
    /// running plans. A plan Stripe bills changes at Stripe first (`cancel_at_period_end`); when
    /// Stripe cannot be reached nothing changes and the page says to try again.
    func setRenewal(_ request: Request, _ context: Context, renew: Bool) async throws -> Response {
        let (session, _) = try await signedInForm(request, context)
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)),
              let outcome = try await account.setRenewal(plan: id, account: session.account.id, renew: renew) else {
            throw HTTPError(.notFound)
        }
        switch outcome {
        case .processorUnavailable: return Self.back("processor-unavailable")
        case .processorRefused: return Self.back("processor-refused")
        case .planOver: return Self.back("plan-over")
        case .changed: break
        }
        return Self.back(renew ? "plan-resumed" : "plan-cancelled")
    }

    /// `POST /account/delete`: with the password and the confirmation box. Plans stop renewing
    /// first (at Stripe too: if Stripe cannot be reached the account is not deleted yet), then the
    /// account is closed (`AccountClosure`) and every token and session ends.
    @Sendable func deleteAccount(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await signedInForm(request, context)
        let account = session.account
        let accountID = account.id
        guard form["confirm"] == "yes" else { return Self.back("delete-unconfirmed") }
        switch try await checkPassword(form.values["password"] ?? "", of: account) {
        case .throttled(let wait): return try await tooManyAttempts(wait)
        case .wrong: return Self.back("password-wrong")
        case .right: break
        }
        guard try await self.account.close(account: accountID) else { return Self.back("processor-unavailable") }
        var response = WebPage.seeOther("/signin?deleted=1")
        response.headers[.setCookie] = Cookie(name: WebSessionStore.cookieName, value: "", maxAge: 0, path: "/",
                                              secure: secure, httpOnly: true, sameSite: .lax).description
        return response
    }

    enum PasswordCheck {
        case right, wrong
        case throttled(retryAfter: Int)
    }

    /// Checks the account's current password under its sign-in throttle (`SignInThrottleRule.account`,
    /// the rule of the sign-in form): the attempt is counted first, so a signed-in browser cannot
    /// guess the password faster than signing in could; a right password forgets the count, as a
    /// sign-in does.
    func checkPassword(_ password: String, of account: AccountRecord) async throws -> PasswordCheck {
        let rule = SignInThrottleRule.account(email: account.email)
        if case .refused(let wait) = try await throttle.claim(rule) { return .throttled(retryAfter: wait) }
        guard let hash = try await self.account.passwordHash(of: account.id), try await PasswordHasher.verify(password, hash: hash) else {
            return .wrong
        }
        try await throttle.reset(key: rule.key)
        return .right
    }

    /// 429, with a page that says when the next attempt may come.
    func tooManyAttempts(_ wait: Int) async throws -> Response {
        pages.response(.error, ErrorPageValues(
            title: "Too many attempts", marketplace: try await marketplaceName(),
            message: "Too many password attempts on this account. Try again in \(PasswordSignIn.minutes(wait)); nothing was changed."),
                       status: .tooManyRequests, extraHeaders: [.retryAfter: String(wait)])
    }

    /// The account page's notice for `?notice=` (a fixed list: the query never reaches the page as text).
    static func notice(_ code: String?) -> (text: String, isError: Bool)? {
        switch code {
        case "password-changed": ("Password changed. Other browsers were signed out; your devices stay signed in.", false)
        case "password-wrong": ("That is not your current password.", true)
        case "password-mismatch": ("The new password and its confirmation differ.", true)
        case "password-rules": ("The new password needs 8 to 72 characters.", true)
        case "plan-cancelled": ("Your plan will not renew. You keep it until the end of the period you paid for.", false)
        case "plan-resumed": ("Your plan renews again.", false)
        case "plan-over": ("That plan has ended or is not yours.", true)
        case "processor-unavailable": ("The payment processor cannot be reached; nothing changed. Try again shortly.", true)
        case "processor-refused": ("The payment processor refused the change; nothing changed.", true)
        case "delete-unconfirmed": ("Tick the box to confirm that you want to delete your account.", true)
        default: nil
        }
    }
}
