import FluentKit
import Foundation
import SoukCore

/// A person's account as the operations, the console and the commands see it: the facts of
/// `AccountModel` without its password hash or two-factor secret (the model stays inside SoukStore).
public struct AccountRecord: Sendable, Equatable {
    public var id: UUID
    public var email: String
    public var role: AccountRole
    public var disabled: Bool
    /// A sandbox account sees and presents only purchases made in the stores' sandboxes.
    public var sandbox: Bool
    /// Whether signing in to the console asks for a TOTP code after the password.
    public var totpEnabled: Bool
    public var createdAt: Date?
    /// At most this many devices with live licenses (nil: the server's default limit, if any).
    public var deviceLimit: Int?

    public init(id: UUID, email: String, role: AccountRole, disabled: Bool = false, sandbox: Bool = false,
                totpEnabled: Bool = false, createdAt: Date? = nil, deviceLimit: Int? = nil) {
        self.id = id
        self.email = email
        self.role = role
        self.disabled = disabled
        self.sandbox = sandbox
        self.totpEnabled = totpEnabled
        self.createdAt = createdAt
        self.deviceLimit = deviceLimit
    }

    init(_ model: AccountModel) throws {
        self.init(id: try model.requireID(), email: model.email, role: model.role, disabled: model.disabled, sandbox: model.sandbox,
                  totpEnabled: model.totpEnabled, createdAt: model.createdAt, deviceLimit: model.deviceLimit)
    }

    /// The audit log's target for this account: `account:<id>`.
    public var auditTarget: String { "account:" + id.uuidString.lowercased() }
}

extension PeopleDirectory {
    /// The account with this id, or nil.
    public func account(id: UUID) async throws -> AccountRecord? {
        try await AccountModel.find(id, on: database.db).map(AccountRecord.init)
    }

    /// The account with this email (compared lower-cased), or nil.
    public func account(email: String) async throws -> AccountRecord? {
        try await AccountModel.find(email: email, on: database.db).map(AccountRecord.init)
    }

    /// The account with this email; `CatalogError.notFound` ("no account with email …") without one.
    public func requireAccount(email: String) async throws -> AccountRecord {
        guard let account = try await account(email: email) else {
            throw CatalogError.notFound("no account with email \(AccountModel.normalize(email: email))")
        }
        return account
    }

    /// Accounts as `search` finds them, as values.
    public func searchRecords(_ query: String, limit: Int, offset: Int) async throws -> [AccountRecord] {
        try await search(query, limit: limit, offset: offset).map(AccountRecord.init)
    }
}

extension PeopleDirectory {
    /// Every account, by email.
    public func accounts() async throws -> [AccountRecord] {
        try await AccountModel.query(on: database.db).sort(\.$email).all().map(AccountRecord.init)
    }

    /// Creates an account (`CatalogStore.createAccount`'s checks: an email address, not taken yet)
    /// with its role and sandbox flag.
    public func create(email: String, passwordHash: String, role: AccountRole = .customer, sandbox: Bool = false) async throws -> AccountRecord {
        let account = try await CatalogStore(database: database).createAccount(email: email, passwordHash: passwordHash)
        if sandbox || role != .customer {
            account.sandbox = sandbox
            account.role = role
            try await account.save(on: database.db)
        }
        return try AccountRecord(account)
    }

    /// Replaces the account's password hash; returns whether the account exists.
    @discardableResult
    public func setPasswordHash(_ hash: String, account: UUID) async throws -> Bool {
        try await database.sql.raw("""
            UPDATE accounts SET password_hash = \(bind: hash) WHERE id = \(bind: account) RETURNING id
            """).first() != nil
    }
}
