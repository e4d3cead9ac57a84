import Foundation
import SQLKit
import SoukCore

/// A promotional grant (`entitlement_grants`): an operator opened one entitlement for one account
/// in one app, outside every store, e.g. a support gesture or a press account.
public struct EntitlementGrant: Sendable, Equatable {
    public var id: UUID
    public var app: String
    public var accountId: UUID
    public var entitlementId: String
    /// The account's when granted (Sandbox for sandbox accounts).
    public var environment: CommerceEnvironment
    public var startsAt: Date
    /// nil: for good (until revoked).
    public var expiresAt: Date?
    public var revokedAt: Date?
    public var reason: String?
    public var createdAt: Date

    /// Whether it opens its entitlement at `now`.
    public func isActive(at now: Date) -> Bool {
        revokedAt == nil && startsAt <= now && expiresAt.map { now < $0 } ?? true
    }

    /// The record the entitlement engine reads: no product, only the entitlement.
    public var record: PurchaseRecord {
        PurchaseRecord(paymentId: id, productId: "", type: .nonConsumable, environment: environment, purchaseDate: startsAt,
                       expiresDate: expiresAt, revokedAt: revokedAt, grantedEntitlement: entitlementId)
    }

    static let columns = "id, app, account_id, entitlement_id, environment, starts_at, expires_at, revoked_at, reason, created_at"

    static func decode(_ row: any SQLRow) throws -> EntitlementGrant {
        let environment = try row.decode(column: "environment", as: String.self)
        return EntitlementGrant(
            id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
            accountId: try row.decode(column: "account_id", as: UUID.self),
            entitlementId: try row.decode(column: "entitlement_id", as: String.self),
            environment: CommerceEnvironment(rawValue: environment) ?? .sandbox,
            startsAt: try row.decode(column: "starts_at", as: Date.self), expiresAt: try row.decode(column: "expires_at", as: Date?.self),
            revokedAt: try row.decode(column: "revoked_at", as: Date?.self), reason: try row.decode(column: "reason", as: String?.self),
            createdAt: try row.decode(column: "created_at", as: Date.self))
    }
}

/// Why a grant was not made, said so the operator can fix the command.
public struct EntitlementGrantError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Promotional grants: `souk entitlements grant`/`revoke`/`grants`.
///
/// Every change goes through `PurchaseStore.write`, so it is serialized with the account's other
/// writes, moves `commerce_changes` (every process's entitlement index forgets the account within
/// its refresh interval, this one at once) and records its `grant` / `grant_revoked` event
/// (source `operator`, store `promotional`) in the same transaction: a grant without its event, or
/// an event without its grant, cannot be committed.
public struct EntitlementGrantStore: Sendable {
    let purchases: PurchaseStore

    public init(purchases: PurchaseStore) {
        self.purchases = purchases
    }

    /// Opens `entitlement` for the account in `catalog`'s app from now until `until` (nil: for good).
    ///
    /// The entitlement must be one the catalog declares (a typo would otherwise grant nothing) and
    /// `until` must be ahead. Granting an entitlement already granted adds a second grant; the
    /// latest end counts, as with purchases.
    public func grant(account: UUID, catalog: CommerceCatalog, entitlement: String, until: Date?,
                      reason: String? = nil) async throws -> EntitlementGrant {
        let at = purchases.now()
        guard catalog.entitlements.contains(where: { $0.id == entitlement }) else {
            let known = catalog.entitlements.map(\.id)
            throw EntitlementGrantError("\(catalog.app) has no entitlement \"\(entitlement)\"; "
                + (known.isEmpty ? "its catalog declares none." : "its catalog declares \(known.joined(separator: ", "))."))
        }
        if let until, until <= at {
            throw EntitlementGrantError("The grant would end at \(RFC3339.format(until)), which is not after now (\(RFC3339.format(at))); "
                + "give an end in the future, or none for a grant that lasts until revoked.")
        }
        let app = catalog.app
        return try await purchases.write(app: app, key: Self.key(account: account, app: app)) { sql, changes in
            guard let sandbox = try await sql.raw("SELECT sandbox FROM accounts WHERE id = \(bind: account)").first()?
                .decode(column: "sandbox", as: Bool.self) else {
                throw EntitlementGrantError("No account has id \(account.uuidString.lowercased()).")
            }
            let grant = EntitlementGrant(id: UUID(), app: app, accountId: account, entitlementId: entitlement,
                                         environment: sandbox ? .sandbox : .production, startsAt: at, expiresAt: until,
                                         revokedAt: nil, reason: reason, createdAt: at)
            try await sql.insert(into: "entitlement_grants")
                .columns("id", "app", "account_id", "entitlement_id", "environment", "starts_at", "expires_at", "revoked_at", "reason",
                         "created_at")
                .values(SQLBind(grant.id), SQLBind(app), SQLBind(account), SQLBind(entitlement), SQLBind(grant.environment.rawValue),
                        SQLBind(at), SQLBind(until), SQLBind(Date?.none), SQLBind(reason), SQLBind(at))
                .run()
            try await Self.recordEvent(.grant, for: grant, at: at, on: sql)
            changes.accounts.insert(account)
            return grant
        }
    }

    /// Ends a grant now. Revoking it again changes nothing (and records no second event).
    /// Returns the grant after, or nil when there is no such grant.
    @discardableResult
    public func revoke(_ id: UUID) async throws -> EntitlementGrant? {
        guard let current = try await grant(id) else { return nil }
        let at = purchases.now()
        return try await purchases.write(app: current.app, key: Self.key(account: current.accountId, app: current.app)) { sql, changes in
            let updated = try await sql.raw("""
                UPDATE entitlement_grants SET revoked_at = \(bind: at) WHERE id = \(bind: id) AND revoked_at IS NULL
                RETURNING \(unsafeRaw: EntitlementGrant.columns)
                """).first().map(EntitlementGrant.decode)
            guard let updated else {
                return try await sql.raw("SELECT \(unsafeRaw: EntitlementGrant.columns) FROM entitlement_grants WHERE id = \(bind: id)")
                    .first().map(EntitlementGrant.decode)
            }
            try await Self.recordEvent(.grantRevoked, for: updated, at: at, on: sql)
            changes.accounts.insert(updated.accountId)
            return updated
        }
    }

    /// Ends every unrevoked grant of `entitlement` to the account in the app; returns them after.
    public func revoke(account: UUID, app: String, entitlement: String) async throws -> [EntitlementGrant] {
        var revoked: [EntitlementGrant] = []
        for grant in try await list(account: account, app: app) where grant.entitlementId == entitlement && grant.revokedAt == nil {
            if let after = try await revoke(grant.id), after.revokedAt != nil { revoked.append(after) }
        }
        return revoked
    }

    /// One grant, or nil.
    public func grant(_ id: UUID) async throws -> EntitlementGrant? {
        try await purchases.database.sql.raw("SELECT \(unsafeRaw: EntitlementGrant.columns) FROM entitlement_grants WHERE id = \(bind: id)")
            .first().map(EntitlementGrant.decode)
    }

    /// Grants, oldest first, revoked and ended ones included: of one account (in every app, or in
    /// `app`), or of one app.
    public func list(account: UUID? = nil, app: String? = nil, limit: Int = 10_000) async throws -> [EntitlementGrant] {
        var query = purchases.database.sql.select().column(SQLRaw(EntitlementGrant.columns)).from("entitlement_grants")
        if let account { query = query.where("account_id", .equal, account) }
        if let app { query = query.where("app", .equal, app) }
        return try await query.orderBy("created_at").orderBy("id").limit(limit).all().map(EntitlementGrant.decode)
    }

    /// Grants of one account in one app take turns with each other.
    static func key(account: UUID, app: String) -> String { "grant:\(app)|\(account.uuidString)" }

    /// The grant's lifecycle event, in the write's transaction; one per grant and type (`dedup_key`).
    static func recordEvent(_ type: LifecycleEventType, for grant: EntitlementGrant, at: Date, on sql: any SQLDatabase) async throws {
        let event = CommerceEvent(app: grant.app, accountId: grant.accountId, type: type, source: .operator, environment: grant.environment,
                                  occurredAt: at, createdAt: at, entitlementId: grant.entitlementId, store: Self.store,
                                  paymentId: grant.id, expiresAt: type == .grantRevoked ? at : grant.expiresAt,
                                  dedupKey: "\(type.rawValue)|\(Self.store)|\(grant.id.uuidString.lowercased())")
        try await CommerceEventStore.record(event, on: sql)
    }

    /// The `store` of a grant in events and in the customer document.
    public static let store = "promotional"
}

extension EntitlementGrant {
    /// A grant as the audit log keeps it (console and `souk entitlements` alike): `until` is
    /// `none` for a grant without an end; `revoked_at` only once it was revoked.
    public var auditFields: [String: String] {
        var fields = ["grant": id.uuidString.lowercased(), "app": app, "entitlement": entitlementId,
                      "environment": environment.rawValue, "until": expiresAt.map(RFC3339.format) ?? "none", "reason": reason ?? ""]
        fields["revoked_at"] = revokedAt.map(RFC3339.format)
        return fields
    }
}
