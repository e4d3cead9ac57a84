import Foundation
import SoukCore
import SoukStore

/// Who may act on a person: the one place every operation of `PeopleOperations` asks before it
/// changes anything. Staff follow SoukCore's `StaffScope` (docs/web.md, "Roles": only on a lower
/// role, never their own account, only through an action their role has); the `souk` commands
/// and Souk itself act as the machine's operator; developer actors never act on accounts. A staff
/// member's refusal is written to the audit log (`console.refused`, with the action and the reason).
package struct AccountScope: Sendable {
    package let audit: AuditLog

    package init(audit: AuditLog) { self.audit = audit }

    /// Whether `actor` may take `action` on `person`.
    package static func verdict(_ action: StaffScope.Action, actor: SoukActor, on person: AccountRecord) -> StaffScope.Verdict {
        switch actor {
        case .staff(let id, _, let role):
            StaffScope.verdict(action, by: .init(id: id, role: role), on: .init(id: person.id, role: person.role))
        case .cli, .system:
            .allowed
        case .developerMember, .developerKey:
            .refused("Only the marketplace's staff act on accounts.")
        }
    }

    /// Returns when `actor` may take `action` on `person`; otherwise audits a staff member's refusal
    /// and throws `PeopleOperationError.refused`.
    package func check(_ action: StaffScope.Action, actor: SoukActor, on person: AccountRecord) async throws {
        guard case .refused(let reason) = Self.verdict(action, actor: actor, on: person) else { return }
        if case .staff = actor {
            try await audit.record(actor: actor, action: .consoleRefused, target: person.auditTarget,
                                   after: ["action": action.rawValue, "reason": reason])
        }
        throw PeopleOperationError.refused(reason)
    }

    /// Returns when `actor` may take `action` on every account of `app` at once (the mass
    /// renewal-date extension): a staff member needs the role `StaffScope` asks of the same action on
    /// one person; the machine's operator may. Otherwise audits a staff member's refusal (target
    /// `app:<app>`) and throws `PeopleOperationError.refused`.
    package func check(_ action: StaffScope.Action, actor: SoukActor, app: String) async throws {
        let reason: String
        switch actor {
        case .cli, .system: return
        case .staff(_, _, let role):
            guard role < action.minimumRole else { return }
            reason = "Only an operator may do this; your role is \(role.rawValue)."
            try await audit.record(actor: actor, action: .consoleRefused, target: "app:\(app)",
                                   after: ["action": action.rawValue, "reason": reason])
        case .developerMember, .developerKey:
            reason = "Only the marketplace's staff act on accounts."
        }
        throw PeopleOperationError.refused(reason)
    }

    /// Returns when the actor may set roles, two-factor sign-in and device limits: only the machine's
    /// operator (a `souk` command on the server) or Souk itself; the console offers none of them.
    package func checkMachineOperator(_ actor: SoukActor) throws {
        switch actor {
        case .cli, .system: return
        case .staff, .developerMember, .developerKey:
            throw PeopleOperationError.refused("Only the server's operator (a souk command on the server) sets roles, two-factor sign-in and device limits.")
        }
    }
}
