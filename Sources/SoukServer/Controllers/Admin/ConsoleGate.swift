import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// Who is using the operator console, once the gate let them in.
struct ConsoleSession: Sendable {
    var account: AccountRecord
    var accountID: UUID
    var csrfToken: String
    var role: AccountRole
    /// The session's cookie value (to mark its second factor).
    var cookie: String
    /// Two-factor sign-in is required and not on yet: only the enrolment page opens.
    var mustEnrol = false

    /// The audit log's actor: the operator's email.
    var actor: String { account.email }
    var isOperator: Bool { role == .operator }
}

/// The door of every `/admin…` route, passed once per request by `ConsoleMiddleware`: signed out →
/// 303 to `/signin?next=<path>`; a customer → 403 page; with `requiresTwoFactor` (`consoleRequiresTwoFactor`), a staff member without TOTP → 303 to
/// the enrolment page, the only console page they may see until it is on; an account with TOTP on
/// whose session has not given its code → 303 to the code step; a POST without the session's CSRF
/// token → 403 (`AdminController.consoleForm`).
struct ConsoleGate: Sendable {
    let sessions: WebSessionStore
    let totp: TOTPStore
    let pages: Pages
    let requiresTwoFactor: Bool
    let marketplaceName: @Sendable () async throws -> String

    /// The console session of `request`, or a refusal thrown as its response. `enrolment`: the
    /// two-factor enrolment page itself, open before two-factor sign-in is on.
    /// Called once per request by `ConsoleMiddleware`; handlers read the session from their context.
    func authenticate(_ request: Request, enrolment: Bool) async throws -> ConsoleSession {
        let here = request.uri.query.map { request.uri.path + "?" + $0 } ?? request.uri.path
        guard let cookie = request.cookies[WebSessionStore.cookieName]?.value, let session = try await sessions.find(cookie) else {
            throw ConsoleRefusal(response: WebController<SoukRequestContext>.seeOther(Self.url("/signin", next: here)))
        }
        let role = session.account.role
        guard role.usesConsole else {
            throw ConsoleRefusal(response: pages.response(.adminForbidden, [
                "title": "Not available", "marketplace": try await marketplaceName(), "email": session.account.email,
            ], status: .forbidden))
        }
        if requiresTwoFactor, !session.account.totpEnabled, !enrolment {
            throw ConsoleRefusal(response: WebController<SoukRequestContext>.seeOther(Self.enrolmentPath))
        }
        if session.account.totpEnabled, try await !totp.secondFactorGiven(sessionToken: cookie) {
            throw ConsoleRefusal(response: WebController<SoukRequestContext>.seeOther(Self.url(Self.secondFactorPath, next: here)))
        }
        return ConsoleSession(account: session.account, accountID: session.account.id, csrfToken: session.csrfToken,
                              role: role, cookie: cookie, mustEnrol: requiresTwoFactor && !session.account.totpEnabled)
    }

    /// 403 for a console role other than operator.
    static func requireOperator(_ session: ConsoleSession) throws {
        guard session.isOperator else { throw Problem(.forbidden, "Only an operator may do this; your role is \(session.role.rawValue).") }
    }

    /// Where a staff member turns two-factor sign-in on (`AdminController.security`).
    static var enrolmentPath: String { "/admin/security" }

    /// The sign-in step that asks for the TOTP code (`SecondFactorController`).
    static var secondFactorPath: String { "/signin/code" }

    /// `path?next=<next>` with `next` percent-encoded.
    static func url(_ path: String, next: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return path + "?next=" + (next.addingPercentEncoding(withAllowedCharacters: allowed) ?? "/admin")
    }
}

/// A refusal of the console gate, answered with its own page or redirect.
struct ConsoleRefusal: HTTPResponseError {
    let response: Response
    var status: HTTPResponse.Status { response.status }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }
}
