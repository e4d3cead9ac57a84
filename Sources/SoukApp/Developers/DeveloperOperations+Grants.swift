import Foundation
import SoukCore
import SoukStore

/// A promotional grant as a developer sees it: the account by the app's account token.
public struct DeveloperGrant: Sendable, Equatable {
    public var grant: EntitlementGrant
    public var accountToken: UUID
}

extension DeveloperOperations {
    /// Opens one of the catalog's entitlements for the account that `accountToken` belongs to in
    /// this app, until `until` (nil: until revoked), through the same grant as the console and
    /// `souk entitlements grant` (`EntitlementGrantStore`). Without `reason` the grant says who made it.
    public func grant(actor: SoukActor, app: String, accountToken: String, entitlement: String, until: Date?,
                      reason: String? = nil) async throws -> DeveloperGrant {
        let state = try await ownership.catalog(app, for: actor, scope: .grantsWrite)
        guard let account = try await AccountTokenStore(database: database).account(token: accountToken, app: app) else {
            throw DeveloperOperationError.invalid(field: "accountToken", "is not the account token of a person in \(app)")
        }
        guard state.catalog.entitlements.contains(where: { $0.id == entitlement }) else {
            let known = state.catalog.entitlements.map(\.id)
            throw DeveloperOperationError.invalid(field: "entitlement", "\(app) has no entitlement \"\(entitlement)\"; "
                + (known.isEmpty ? "its catalog declares none" : "its catalog declares \(known.joined(separator: ", "))"))
        }
        let made: EntitlementGrant
        do {
            made = try await EntitlementGrantStore(purchases: purchases)
                .grant(account: account, catalog: state.catalog, entitlement: entitlement, until: until,
                       reason: reason ?? "granted by \(actor.auditName)")
        } catch let error as EntitlementGrantError {
            // The entitlement and the account were checked above: what is left is the end date.
            throw DeveloperOperationError.invalid(field: "until", error.description)
        }
        try await audit.record(actor: actor.auditName, action: .entitlementGrant, target: "account:\(account.uuidString.lowercased())",
                               after: made.auditFields)
        return DeveloperGrant(grant: made, accountToken: try await AccountTokenStore(database: database).token(account: account, app: app))
    }

    /// Ends a promotional grant of one of the organisation's catalogs now; revoking it again changes nothing.
    public func revokeGrant(actor: SoukActor, id: UUID) async throws {
        try DeveloperOwnership.authorize(actor, .grantsWrite)
        let grants = EntitlementGrantStore(purchases: purchases)
        let notFound = DeveloperOperationError.notFound("No grant \(id.uuidString.lowercased()) is yours.")
        guard let before = try await grants.grant(id) else { throw notFound }
        do {
            try await ownership.reach(catalog: before.app, for: actor)
        } catch DeveloperOperationError.notFound {
            throw notFound
        }
        if let after = try await grants.revoke(id), before.revokedAt == nil, after.revokedAt != nil {
            try await audit.record(actor: actor.auditName, action: .entitlementRevoke, target: "account:\(before.accountId.uuidString.lowercased())",
                                   before: before.auditFields, after: after.auditFields)
        }
    }
}
