import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Who is using the developer console, once the gate let them in.
struct DeveloperSession: Sendable {
    var account: AccountRecord
    var accountID: UUID
    var csrfToken: String
    /// The session's cookie value (to mark its second factor).
    var cookie: String
    var member: DeveloperMember
    var developer: Developer
    /// Two-factor sign-in is required and not on yet: only the enrolment page opens.
    var mustEnrol: Bool

    /// The actor every operation of this session is done as.
    var actor: SoukActor {
        .developerMember(accountID: accountID, email: account.email, developerID: member.developerID, role: member.role)
    }
    var isOwner: Bool { member.role == .owner }
}

/// The door of every `/developer…` route, passed once per request by `DeveloperConsoleMiddleware`:
/// the operator console's rules for a member of a developer organisation: signed out → 303 to `/signin?next=<path>`; an account that is no member of an
/// organisation (a customer, and staff too: the operator's console is theirs) → a 403 page; with
/// `requiresTwoFactor` (`consoleRequiresTwoFactor`), a member without TOTP → 303 to the developer
/// console's enrolment page, the only page they see until it is on; TOTP on but not given in this
/// session → 303 to the code step; a POST without the session's CSRF token → 403
/// (`DeveloperConsoleController.memberForm`).
struct DeveloperConsoleGate: Sendable {
    let sessions: WebSessionStore
    let totp: TOTPStore
    let directory: DeveloperDirectory
    let pages: Pages
    let requiresTwoFactor: Bool
    let marketplaceName: @Sendable () async throws -> String

    static var enrolmentPath: String { "/developer/security" }

    /// The session of `request`, or a refusal thrown as its response. `enrolment`: the enrolment page itself.
    /// Called once per request by `DeveloperConsoleMiddleware`; handlers read the session from their context.
    func authenticate(_ request: Request, enrolment: Bool) async throws -> DeveloperSession {
        let here = request.uri.query.map { request.uri.path + "?" + $0 } ?? request.uri.path
        guard let cookie = request.cookies[WebSessionStore.cookieName]?.value, let session = try await sessions.find(cookie) else {
            throw ConsoleRefusal(response: WebController<SoukRequestContext>.seeOther(ConsoleGate.url("/signin", next: here)))
        }
        let accountID = session.account.id
        guard let member = try await directory.membership(accountID: accountID), let developer = try await directory.find(member.developerID) else {
            throw ConsoleRefusal(response: pages.response(.developerForbidden, [
                "title": "Not available", "marketplace": try await marketplaceName(), "email": session.account.email,
            ], status: .forbidden))
        }
        if requiresTwoFactor, !session.account.totpEnabled, !enrolment {
            throw ConsoleRefusal(response: WebController<SoukRequestContext>.seeOther(Self.enrolmentPath))
        }
        if session.account.totpEnabled, try await !totp.secondFactorGiven(sessionToken: cookie) {
            throw ConsoleRefusal(response: WebController<SoukRequestContext>.seeOther(ConsoleGate.url(ConsoleGate.secondFactorPath, next: here)))
        }
        return DeveloperSession(account: session.account, accountID: accountID, csrfToken: session.csrfToken, cookie: cookie,
                                member: member, developer: developer, mustEnrol: requiresTwoFactor && !session.account.totpEnabled)
    }
}
