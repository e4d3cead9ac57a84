import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The sign-in step after the password for an account with TOTP on (`/signin/code`): a current
/// code from the authenticator app, or one of the recovery codes, marks the session as having
/// given its second factor. Each code is taken once; attempts are throttled per account like
/// passwords (`SignInThrottleRule`).
struct SecondFactorController<Context: RequestContext> {
    let sessions: WebSessionStore
    let totp: TOTPStore
    let throttle: LoginThrottle
    let pages: Pages
    let marketplaceName: @Sendable () async throws -> String

    func addRoutes(to router: Router<Context>) {
        router.get("signin/code", use: page)
        router.post("signin/code", use: submit)
    }

    /// Five attempts, then doubling waits up to 15 minutes; forgotten after an hour of quiet.
    static func rule(account: UUID) -> SignInThrottleRule {
        SignInThrottleRule(key: "totp:" + account.uuidString.lowercased(), freeAttempts: 5, window: 3600, backoff: .doubling(cap: 900))
    }

    /// The code form.
    @Sendable func page(_ request: Request, context: Context) async throws -> Response {
        let next = SignInReturn.path(request.uri.queryParameters["next"].map(String.init)) ?? "/admin"
        guard let cookie = request.cookies[WebSessionStore.cookieName]?.value, let session = try await sessions.find(cookie) else {
            return WebPage.seeOther(ConsoleGate.url("/signin", next: next))
        }
        guard session.account.totpEnabled else { return WebPage.seeOther(next) }
        if try await totp.secondFactorGiven(sessionToken: cookie) { return WebPage.seeOther(next) }
        return try await form(session: session, next: next, error: nil, status: .ok)
    }

    /// Checks the code (or recovery code) and sends the person on to `next`.
    @Sendable func submit(_ request: Request, context: Context) async throws -> Response {
        guard let cookie = request.cookies[WebSessionStore.cookieName]?.value, let session = try await sessions.find(cookie) else {
            return WebPage.seeOther("/signin")
        }
        let form = try await sessions.checkedForm(request, session: session, context: context)
        let next = SignInReturn.path(form["next"]) ?? "/admin"
        guard session.account.totpEnabled else { return WebPage.seeOther(next) }
        let accountID = session.account.id
        let rule = Self.rule(account: accountID)
        if case .refused(let wait) = try await throttle.claim(rule) {
            return try await self.form(session: session, next: next, error: "Too many attempts. Try again in \(PasswordSignIn.minutes(wait)).",
                                       status: .tooManyRequests, headers: [.retryAfter: String(wait)])
        }
        let code = (form["code"] ?? "").trimmingCharacters(in: .whitespaces)
        let digitsOnly = code.filter { !$0.isWhitespace }.allSatisfy(\.isNumber)
        let accepted = digitsOnly ? try await totp.verify(account: accountID, code: code)
                                  : try await totp.useRecoveryCode(account: accountID, code: code)
        guard accepted else {
            return try await self.form(session: session, next: next, error: "That code is not right, or it was used already.",
                                       status: .unauthorized)
        }
        try await throttle.reset(key: rule.key)
        try await totp.markSecondFactor(sessionToken: cookie)
        return WebPage.seeOther(next)
    }

    private func form(session: WebSessionStore.Session, next: String, error: String?, status: HTTPResponse.Status,
                      headers: HTTPFields = [:]) async throws -> Response {
        let values = SignInCodeValues(title: "Enter your code", marketplace: try await marketplaceName(), email: session.account.email,
                                      csrfToken: session.csrfToken, next: next, error: error)
        return pages.response(.signinCode, values, status: status, extraHeaders: headers)
    }
}
