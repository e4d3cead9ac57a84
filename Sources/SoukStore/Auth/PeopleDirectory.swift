import FluentKit
import Foundation
import SQLKit
import SoukCore

/// What the operator console reads about people and the marketplace as a whole.
public struct PeopleDirectory: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// Accounts whose email contains `query` (case-insensitive), or whose id is exactly `query`;
    /// every account without a query. By email, `limit` from `offset`.
    public func search(_ query: String, limit: Int, offset: Int) async throws -> [AccountModel] {
        let text = AccountModel.normalize(email: query)
        var builder = AccountModel.query(on: database.db)
        if !text.isEmpty {
            let id = UUID(uuidString: text)
            builder = builder.group(.or) { group in
                group.filter(\.$email ~~ text)
                if let id { group.filter(\.$id == id) }
            }
        }
        return try await builder.sort(\.$email).range(offset..<(offset + limit)).all()
    }

    /// Disables or enables an account in one conditional statement; returns whether it changed.
    public func setDisabled(_ disabled: Bool, account: UUID) async throws -> Bool {
        try await database.sql.raw("""
            UPDATE accounts SET disabled = \(bind: disabled) WHERE id = \(bind: account) AND disabled = \(bind: !disabled) RETURNING id
            """).first() != nil
    }

    /// Sets an account's role; returns the role before, or nil when it already had `role`.
    public func setRole(_ role: AccountRole, account: UUID) async throws -> AccountRole? {
        guard let before = try await AccountModel.find(account, on: database.db)?.role, before != role else { return nil }
        let changed = try await database.sql.raw("""
            UPDATE accounts SET role = \(bind: role.rawValue) WHERE id = \(bind: account) AND role = \(bind: before.rawValue) RETURNING id
            """).first()
        return changed == nil ? nil : before
    }

    /// The dashboard's counts.
    public struct Counts: Sendable, Equatable {
        public var apps: Int
        public var accounts: Int
        public var liveLicenses: Int
        /// Membership plans and in-app subscriptions that are active or in a grace period.
        public var activeSubscriptions: Int
        public var activeGrants: Int
    }

    public func counts(at now: Date = Date()) async throws -> Counts {
        func count(_ query: SQLQueryString) async throws -> Int {
            try await database.sql.raw("SELECT COUNT(*) AS n FROM " + query).first()?.decode(column: "n", as: Int.self) ?? 0
        }
        let plans = try await count("marketplace_subscriptions WHERE state IN ('active', 'grace_period') AND revoked_at IS NULL")
        let inApp = try await count("purchases WHERE subscription_state IN ('active', 'grace_period') AND revoked_at IS NULL")
        return Counts(
            apps: try await count("apps"), accounts: try await count("accounts"),
            liveLicenses: try await count("licenses WHERE revoked_at IS NULL AND expires_at > \(bind: now)"),
            activeSubscriptions: plans + inApp,
            activeGrants: try await count("""
                entitlement_grants WHERE revoked_at IS NULL AND starts_at <= \(bind: now) AND (expires_at IS NULL OR expires_at > \(bind: now))
                """))
    }
}
