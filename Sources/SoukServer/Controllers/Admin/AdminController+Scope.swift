import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Who the console may act on: every action on a person asks `AccountScope` (SoukApp, the one rule
/// the operations apply) before it changes anything. A refusal is written to the audit log
/// (`console.refused`, with the action and the reason) and answered 403.
extension AdminController {
    /// The operations on people, acting through this console's clock.
    var peopleOperations: PeopleOperations { services.people }

    /// Returns when the session may take `action` on `person`; otherwise audits the refusal and throws 403.
    func authorize(_ action: StaffScope.Action, session: ConsoleSession, on person: AccountRecord) async throws {
        do {
            try await peopleOperations.scope.check(action, actor: Self.staffActor(session), on: person)
        } catch PeopleOperationError.refused(let reason) {
            throw Problem(.forbidden, reason)
        }
    }

    /// Returns when the session's role may take `action` on a whole app (the mass renewal-date
    /// extension: the role that `StaffScope` asks of the same action on one person); otherwise
    /// audits the refusal (target `app:<app>`) and throws 403.
    func authorize(_ action: StaffScope.Action, session: ConsoleSession, app: String) async throws {
        do {
            try await peopleOperations.scope.check(action, actor: Self.staffActor(session), app: app)
        } catch PeopleOperationError.refused(let reason) {
            throw Problem(.forbidden, reason)
        }
    }

    /// Whether the session may take `action` on `person` (the person's page shows only those forms).
    func allows(_ action: StaffScope.Action, session: ConsoleSession, on person: AccountRecord) -> Bool {
        AccountScope.verdict(action, actor: Self.staffActor(session), on: person).isAllowed
    }
}
