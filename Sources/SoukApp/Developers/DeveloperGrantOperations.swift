import Foundation
import SoukCore
import SoukStore

/// Promotional grants of the entitlements of an in-app catalog the actor reaches: the person is
/// named by their account token in that app (docs/commerce.md, "Account tokens"), never by email,
/// and the lists name them the same way. A grant of another organisation's catalog is `notFound`.
/// Each change writes its audit entry (`entitlement.grant`, `entitlement.revoke`).
package struct DeveloperGrantOperations: Sendable {
    package let services: DeveloperServices

    /// A grant as its developer sees it.
    package struct Line: Sendable {
        var grant: EntitlementGrant
        var accountToken: UUID
    }

    /// The catalog's grants, newest first.
    package func list(actor: SoukActor, app: String) async throws -> [Line] {
        let state = try await services.ownership.catalog(app, for: actor)
        var tokens: [UUID: UUID] = [:]
        var lines: [Line] = []
        for grant in try await services.grants.list(app: state.catalog.app).reversed() {
            if tokens[grant.accountId] == nil {
                tokens[grant.accountId] = try await services.accountTokens.token(account: grant.accountId, app: grant.app)
            }
            lines.append(Line(grant: grant, accountToken: tokens[grant.accountId] ?? UUID()))
        }
        return lines
    }

    /// Opens `entitlement` for the person whose account token in `app` is `accountToken`, until
    /// `until` (nil: until revoked).
    @discardableResult
    package func grant(actor: SoukActor, app: String, accountToken: String, entitlement: String, until: Date?, reason: String) async throws -> EntitlementGrant {
        let state = try await services.ownership.catalog(app, for: actor, changing: .grantsWrite)
        guard let account = try await services.accountTokens.account(token: accountToken, app: state.catalog.app) else {
            throw DeveloperOperationError.invalid(field: "accountToken", "No person has this account token in \(state.catalog.app).")
        }
        let reason = reason.trimmingCharacters(in: .whitespaces)
        guard !reason.isEmpty, reason.count <= 500 else { throw DeveloperOperationError.invalid(field: "reason", "Say why the entitlement is granted (at most 500 characters).") }
        let made: EntitlementGrant
        do {
            made = try await services.grants.grant(account: account, catalog: state.catalog, entitlement: entitlement, until: until, reason: reason)
        } catch let error as EntitlementGrantError {
            throw DeveloperOperationError.invalid(field: "entitlement", error.description)
        }
        try await services.audit.record(actor: actor.auditName, action: .entitlementGrant, target: "account:\(account.uuidString.lowercased())",
                                        after: made.auditFields)
        return made
    }

    /// Ends a grant of a catalog the actor reaches; returns the catalog's app.
    @discardableResult
    package func revoke(actor: SoukActor, grant id: UUID) async throws -> String {
        guard let before = try await services.grants.grant(id) else { throw DeveloperOperationError.notFound("No grant of yours has this id.") }
        do {
            _ = try await services.ownership.catalog(before.app, for: actor, changing: .grantsWrite)
        } catch DeveloperOperationError.notFound {
            throw DeveloperOperationError.notFound("No grant of yours has this id.")
        }
        if let after = try await services.grants.revoke(id), before.revokedAt == nil, after.revokedAt != nil {
            try await services.audit.record(actor: actor.auditName, action: .entitlementRevoke, target: "account:\(before.accountId.uuidString.lowercased())",
                                            before: before.auditFields, after: after.auditFields)
        }
        return before.app
    }
}
