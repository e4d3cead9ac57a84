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

/// The door of every `/admin…` route, passed once per request by `ConsoleMiddleware`: the steps of
/// `ConsoleDoor` (signed out, second factor), letting in staff (`AccountRole.usesConsole`); a
/// customer gets a 403 page. A POST without the session's CSRF token → 403
/// (`AdminController.consoleForm`).
struct ConsoleGate: Sendable {
    let door: ConsoleDoor

    init(sessions: WebSessionStore, totp: TOTPStore, pages: Pages, requiresTwoFactor: Bool,
         marketplaceName: @escaping @Sendable () async throws -> String) {
        door = ConsoleDoor(sessions: sessions, totp: totp, pages: pages, requiresTwoFactor: requiresTwoFactor, marketplaceName: marketplaceName,
                           enrolmentPath: Self.enrolmentPath, forbidden: .adminForbidden)
    }

    /// The console session of `request`, or a refusal thrown as its response. `enrolment`: the
    /// two-factor enrolment page itself, open before two-factor sign-in is on.
    /// Called once per request by `ConsoleMiddleware`; handlers read the session from their context.
    func authenticate(_ request: Request, enrolment: Bool) async throws -> ConsoleSession {
        let passed = try await door.pass(request, enrolment: enrolment) { session in
            session.account.role.usesConsole ? session.account.role : nil
        }
        return ConsoleSession(account: passed.session.account, accountID: passed.session.account.id, csrfToken: passed.session.csrfToken,
                              role: passed.admitted, cookie: passed.cookie, mustEnrol: passed.mustEnrol)
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

/// The steps both consoles' gates take before their own rule, in this order: signed out → 303 to
/// `/signin?next=<path>`; not let in by `admit` (a customer in the operator's console, someone in no
/// organisation in the developer's) → the `forbidden` page, 403; with `requiresTwoFactor`
/// (`consoleRequiresTwoFactor`), an account without TOTP → 303 to `enrolmentPath`, the only console
/// page it may see until TOTP is on; TOTP on but its code not given in this session → 303 to the
/// code step.
struct ConsoleDoor: Sendable {
    let sessions: WebSessionStore
    let totp: TOTPStore
    let pages: Pages
    let requiresTwoFactor: Bool
    let marketplaceName: @Sendable () async throws -> String
    /// The console's two-factor enrolment page.
    let enrolmentPath: String
    /// The console's "not available" page.
    let forbidden: PageTemplate

    /// What passed the door: the web session, its cookie, what `admit` let in, and whether only the
    /// enrolment page opens.
    struct Passed<Admitted: Sendable>: Sendable {
        var session: WebSessionStore.Session
        var cookie: String
        var admitted: Admitted
        var mustEnrol: Bool
    }

    /// The signed-in session of `request` when `admit` lets its account in and its second factor is
    /// settled, or a refusal thrown as its response. `enrolment`: the enrolment page itself.
    func pass<Admitted: Sendable>(_ request: Request, enrolment: Bool,
                                  admit: (WebSessionStore.Session) async throws -> Admitted?) async throws -> Passed<Admitted> {
        let here = request.uri.query.map { request.uri.path + "?" + $0 } ?? request.uri.path
        guard let cookie = request.cookies[WebSessionStore.cookieName]?.value, let session = try await sessions.find(cookie) else {
            throw ConsoleRefusal(response: WebPage.seeOther(ConsoleGate.url("/signin", next: here)))
        }
        guard let admitted = try await admit(session) else {
            throw ConsoleRefusal(response: pages.response(forbidden, ForbiddenPageValues(
                title: "Not available", marketplace: try await marketplaceName(), email: session.account.email), status: .forbidden))
        }
        if requiresTwoFactor, !session.account.totpEnabled, !enrolment {
            throw ConsoleRefusal(response: WebPage.seeOther(enrolmentPath))
        }
        if session.account.totpEnabled, try await !totp.secondFactorGiven(sessionToken: cookie) {
            throw ConsoleRefusal(response: WebPage.seeOther(ConsoleGate.url(ConsoleGate.secondFactorPath, next: here)))
        }
        return Passed(session: session, cookie: cookie, admitted: admitted, mustEnrol: requiresTwoFactor && !session.account.totpEnabled)
    }
}
