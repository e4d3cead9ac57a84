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
/// the steps of `ConsoleDoor` (signed out, second factor, under the same `consoleRequiresTwoFactor`
/// rule as staff), letting in a member of a developer organisation; an account that is no member of
/// one (a customer, and staff too: the operator's console is theirs) gets a 403 page. A POST without
/// the session's CSRF token → 403 (`DeveloperConsoleController.memberForm`).
struct DeveloperConsoleGate: Sendable {
    let door: ConsoleDoor
    let directory: DeveloperDirectory

    init(sessions: WebSessionStore, totp: TOTPStore, directory: DeveloperDirectory, pages: Pages, requiresTwoFactor: Bool,
         marketplaceName: @escaping @Sendable () async throws -> String) {
        door = ConsoleDoor(sessions: sessions, totp: totp, pages: pages, requiresTwoFactor: requiresTwoFactor, marketplaceName: marketplaceName,
                           enrolmentPath: Self.enrolmentPath, forbidden: .developerForbidden)
        self.directory = directory
    }

    static var enrolmentPath: String { "/developer/security" }

    /// The session of `request`, or a refusal thrown as its response. `enrolment`: the enrolment page itself.
    /// Called once per request by `DeveloperConsoleMiddleware`; handlers read the session from their context.
    func authenticate(_ request: Request, enrolment: Bool) async throws -> DeveloperSession {
        let passed = try await door.pass(request, enrolment: enrolment) { session -> (DeveloperMember, Developer)? in
            guard let member = try await directory.membership(accountID: session.account.id),
                  let developer = try await directory.find(member.developerID) else { return nil }
            return (member, developer)
        }
        return DeveloperSession(account: passed.session.account, accountID: passed.session.account.id, csrfToken: passed.session.csrfToken,
                                cookie: passed.cookie, member: passed.admitted.0, developer: passed.admitted.1, mustEnrol: passed.mustEnrol)
    }
}
