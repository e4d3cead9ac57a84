import Foundation
import SoukCore
import SoukStore

/// An organisation with everything it holds, as `souk developers show` and the consoles list it
/// (its keys without their secrets, which are never kept).
public struct DeveloperOverview: Sendable, Equatable {
    public var developer: Developer
    public var members: [DeveloperMember]
    public var apps: [DeveloperAppSummary]
    public var catalogs: [String]
    public var keys: [DeveloperAPIKey]
}

extension DeveloperOperations {
    /// Makes an organisation (the operator side only).
    public func createDeveloper(actor: SoukActor, name: String, id: String?, commissionPercent: Int?) async throws -> Developer {
        try authorizeOperator(actor)
        let developer = try await directory.create(name: name, id: id, commissionPercent: commissionPercent)
        try await audit.record(actor: actor.auditName, action: .developerCreate, target: "developer:\(developer.id)",
                               after: ["name": developer.name, "commission_percent": commissionPercent.map(String.init) ?? "default"])
        return developer
    }

    /// Sets an organisation's own commission, or with nil gives it the server's default again.
    public func setCommission(actor: SoukActor, developer id: String, percent: Int?) async throws {
        try authorizeOperator(actor)
        guard let before = try await directory.find(id) else { throw DeveloperDirectoryError.unknownDeveloper(id) }
        _ = try await directory.setCommission(percent, developer: id)
        try await audit.record(actor: actor.auditName, action: .developerCommission, target: "developer:\(id)",
                               before: ["commission_percent": before.commissionPercent.map(String.init) ?? "default"],
                               after: ["commission_percent": percent.map(String.init) ?? "default"])
    }

    /// Everything an organisation holds.
    public func overview(actor: SoukActor, developer id: String) async throws -> DeveloperOverview {
        if actor.developerID != id { try authorizeOperator(actor) }
        guard let developer = try await directory.find(id) else { throw DeveloperDirectoryError.unknownDeveloper(id) }
        return DeveloperOverview(developer: developer, members: try await directory.members(of: id), apps: try await directory.apps(of: id),
                                 catalogs: try await directory.catalogs(of: id), keys: try await directory.keys(of: id))
    }

    /// Every organisation, by name.
    public func developers(actor: SoukActor) async throws -> [Developer] {
        try authorizeOperator(actor)
        return try await directory.list()
    }

    /// Adds the account with `email` to an organisation (an account belongs to at most one).
    public func addMember(actor: SoukActor, developer id: String, email: String, role: DeveloperRole) async throws -> DeveloperMember {
        try authorizeOperator(actor)
        guard try await directory.find(id) != nil else { throw DeveloperDirectoryError.unknownDeveloper(id) }
        guard let account = try await CatalogStore(database: database).account(email: email), let accountID = account.id else {
            throw DeveloperDirectoryError.unknownAccount
        }
        let member = try await directory.addMember(developer: id, accountID: accountID, role: role)
        try await audit.record(actor: actor.auditName, action: .developerMemberAdd, target: "developer:\(id)",
                               after: ["email": member.email, "role": role.rawValue])
        return member
    }

    /// Removes the account with `email` from an organisation.
    public func removeMember(actor: SoukActor, developer id: String, email: String) async throws {
        try authorizeOperator(actor)
        guard try await directory.find(id) != nil else { throw DeveloperDirectoryError.unknownDeveloper(id) }
        guard let account = try await CatalogStore(database: database).account(email: email), let accountID = account.id else {
            throw DeveloperDirectoryError.unknownAccount
        }
        guard try await directory.removeMember(developer: id, accountID: accountID) else {
            throw DeveloperOperationError.notFound("\(account.email) is not a member of \(id).")
        }
        try await audit.record(actor: actor.auditName, action: .developerMemberRemove, target: "developer:\(id)",
                               before: ["email": account.email])
    }

    /// Makes an API key (the operator side, or an owner of the organisation); the secret is
    /// returned here only and never written to the audit log.
    public func createKey(actor: SoukActor, developer id: String, name: String, scopes: Set<DeveloperScope>)
        async throws -> (key: DeveloperAPIKey, secret: String) {
        try authorizeKeys(actor, developer: id)
        guard !scopes.isEmpty else { throw DeveloperOperationError.invalid(field: "scopes", "name at least one scope") }
        let made = try await directory.createKey(developer: id, name: name, scopes: scopes, createdBy: actor)
        try await audit.record(actor: actor.auditName, action: .developerKeyCreate, target: "developer:\(id)",
                               after: ["key": made.key.id.uuidString.lowercased(), "name": made.key.name,
                                       "scopes": DeveloperScope.format(scopes), "hint": made.key.hint])
        return made
    }

    /// Revokes a key at once (the operator side, or an owner of the key's organisation).
    public func revokeKey(actor: SoukActor, id: UUID) async throws {
        let notFound = DeveloperOperationError.notFound("No live API key \(id.uuidString.lowercased()).")
        guard let key = try await directory.key(id) else { throw notFound }
        if let developer = actor.developerID, developer != key.developerID { throw notFound }
        try authorizeKeys(actor, developer: key.developerID)
        guard try await directory.revokeKey(id, developer: key.developerID) else { throw notFound }
        try await audit.record(actor: actor.auditName, action: .developerKeyRevoke, target: "developer:\(key.developerID)",
                               before: ["key": id.uuidString.lowercased(), "name": key.name, "scopes": DeveloperScope.format(key.scopes)])
    }

    /// Gives a marketplace app to an organisation, or with nil back to the marketplace.
    public func setAppDeveloper(actor: SoukActor, appleItemId: UInt64, developer id: String?) async throws {
        try authorizeOperator(actor)
        let before = try await directory.owner(appleItemId: appleItemId)
        guard try await directory.setAppDeveloper(appleItemId: appleItemId, developer: id) else {
            throw DeveloperOperationError.notFound("No app has AppleItemID \(appleItemId).")
        }
        try await audit.record(actor: actor.auditName, action: .appSetDeveloper, target: "app:\(appleItemId)",
                               before: ["developer": before ?? ""], after: ["developer": id ?? ""])
    }

    /// Gives an in-app catalog to an organisation, or with nil back to the marketplace; a catalog that
    /// changes owner loses its sealed store credentials (the previous owner's) in the same step.
    @discardableResult
    public func setCatalogDeveloper(actor: SoukActor, app: String, developer id: String?) async throws -> CatalogMove {
        try authorizeOperator(actor)
        guard let move = try await directory.moveCatalog(app: app, to: id) else {
            throw DeveloperOperationError.notFound("No in-app catalog for \(app) (souk catalog list shows them).")
        }
        var after = ["developer": id ?? ""]
        if move.credentialsRemoved > 0 { after["credentialsRemoved"] = String(move.credentialsRemoved) }
        try await audit.record(actor: actor.auditName, action: .catalogSetDeveloper, target: "catalog:\(app)",
                               before: ["developer": move.before ?? ""], after: after)
        return move
    }

    /// Keys are the operator side's, and an organisation owner's for their own organisation.
    private func authorizeKeys(_ actor: SoukActor, developer id: String) throws {
        if actor.isMarketplaceOperator { return }
        guard case .developerMember(_, _, let developer, let role) = actor, developer == id, role == .owner else {
            throw DeveloperOperationError.notAllowed("Only the organisation's owners and the marketplace's operators manage its API keys.")
        }
    }
}
