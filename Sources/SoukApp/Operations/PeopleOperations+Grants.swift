import Foundation
import SoukCore
import SoukStore

extension PeopleOperations {
    /// What a grant asks for. `inputError`: what the face found wrong in its input (a missing
    /// reason, an unreadable date), refused only after the scope check, so a refused actor is told
    /// the refusal and nothing else.
    package struct GrantRequest: Sendable {
        package var app: String
        package var entitlement: String
        package var until: Date?
        package var reason: String?
        package var inputError: String?

        package init(app: String, entitlement: String, until: Date?, reason: String?, inputError: String? = nil) {
            self.app = app
            self.entitlement = entitlement
            self.until = until
            self.reason = reason
            self.inputError = inputError
        }
    }

    /// Grants `request.entitlement` of `request.app` to `person` outside every store (a promotional
    /// grant); writes `entitlement.grant`. A `marketplace` grant (a membership) is an operator's.
    @discardableResult
    package func grant(actor: SoukActor, to person: AccountRecord, _ request: GrantRequest) async throws -> EntitlementGrant {
        try await scope.check(.grant(app: request.app), actor: actor, on: person)
        if let inputError = request.inputError { throw PeopleOperationError.invalid(inputError) }
        guard let catalog = try await commerceCatalogs.state(app: request.app) else { throw PeopleOperationError.noCatalog(app: request.app) }
        let made: EntitlementGrant
        do {
            made = try await grants.grant(account: person.id, catalog: catalog.catalog, entitlement: request.entitlement,
                                          until: request.until, reason: request.reason)
        } catch let error as EntitlementGrantError {
            throw PeopleOperationError.invalid(error.description)
        }
        try await audit.record(actor: actor, action: .entitlementGrant, target: person.auditTarget, after: made.auditFields)
        return made
    }

    /// Revokes one grant now; writes `entitlement.revoke` when it was not revoked yet. With `person`
    /// (the console's person page), the grant must be theirs; without it (`souk entitlements revoke
    /// --id`), the grant's own account is the person. A `marketplace` grant is an operator's.
    @discardableResult
    package func revokeGrant(actor: SoukActor, id: UUID, of person: AccountRecord? = nil) async throws -> EntitlementGrant {
        if let person { try await scope.check(.revoke, actor: actor, on: person) }
        guard let before = try await grants.grant(id), person == nil || before.accountId == person?.id else {
            throw PeopleOperationError.noSuchGrant
        }
        let owner: AccountRecord
        if let person {
            owner = person
        } else {
            guard let found = try await people.account(id: before.accountId) else { throw PeopleOperationError.noSuchGrant }
            owner = found
        }
        try await scope.check(.revoke(app: before.app), actor: actor, on: owner)
        guard let after = try await grants.revoke(id) else { throw PeopleOperationError.noSuchGrant }
        if before.revokedAt == nil, after.revokedAt != nil {
            try await audit.record(actor: actor, action: .entitlementRevoke, target: owner.auditTarget,
                                   before: before.auditFields, after: after.auditFields)
        }
        return after
    }

    /// Revokes every unrevoked grant of `entitlement` in `app` to `person`; one `entitlement.revoke`
    /// entry each. Returns the grants revoked (none: nothing was open).
    package func revokeGrants(actor: SoukActor, of person: AccountRecord, app: String, entitlement: String) async throws -> [EntitlementGrant] {
        try await scope.check(.revoke(app: app), actor: actor, on: person)
        let open = try await grants.list(account: person.id, app: app).filter { $0.revokedAt == nil }
        let revoked = try await grants.revoke(account: person.id, app: app, entitlement: entitlement)
        for after in revoked {
            if let before = open.first(where: { $0.id == after.id }) {
                try await audit.record(actor: actor, action: .entitlementRevoke, target: person.auditTarget,
                                       before: before.auditFields, after: after.auditFields)
            }
        }
        return revoked
    }
}
