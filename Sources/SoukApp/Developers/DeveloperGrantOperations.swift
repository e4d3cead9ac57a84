import Foundation
import SoukCore
import SoukStore

/// Promotional grants of the entitlements of an in-app catalog the actor reaches: the person is
/// named by their account token in that app (docs/commerce.md, "Account tokens"), never by email,
/// and the lists name them the same way. A grant of another organisation's catalog is `notFound`.
/// Each change writes its audit entry (`entitlement.grant`, `entitlement.revoke`).
package struct DeveloperGrantOperations: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    /// A grant as its developer sees it.
    package struct Line: Sendable {
        package var grant: EntitlementGrant
        package var accountToken: UUID
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
    /// `until` (nil: until revoked), with the reason the developer gave (`DeveloperOperations.grant`).
    @discardableResult
    package func grant(actor: SoukActor, app: String, accountToken: String, entitlement: String, until: Date?, reason: String) async throws -> EntitlementGrant {
        let reason = reason.trimmingCharacters(in: .whitespaces)
        guard !reason.isEmpty, reason.count <= 500 else { throw DeveloperOperationError.invalid(field: "reason", "Say why the entitlement is granted (at most 500 characters).") }
        return try await services.operations.grant(actor: actor, app: app, accountToken: accountToken, entitlement: entitlement,
                                                   until: until, reason: reason).grant
    }

    /// Ends a grant of a catalog the actor reaches (`DeveloperOperations.revokeGrant`); returns the catalog's app.
    @discardableResult
    package func revoke(actor: SoukActor, grant id: UUID) async throws -> String {
        guard let before = try await services.grants.grant(id) else { throw DeveloperOperationError.notFound("No grant of yours has this id.") }
        try await services.operations.revokeGrant(actor: actor, id: id)
        return before.app
    }
}
