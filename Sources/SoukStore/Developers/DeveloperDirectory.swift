import Foundation
import SQLKit
import SoukCore

/// A developer organisation (`developers`, docs/developers.md).
public struct Developer: Sendable, Equatable {
    public var id: String
    public var name: String
    /// The marketplace's share of this organisation's sales in percent; nil: the server's default.
    public var commissionPercent: Int?
    public var createdAt: Date
}

/// A person in a developer organisation (`developer_members`).
public struct DeveloperMember: Sendable, Equatable {
    public var id: UUID
    public var developerID: String
    public var accountID: UUID
    public var email: String
    public var role: DeveloperRole
    public var createdAt: Date
}

/// A developer organisation's API key as listed (`developer_api_keys`): never the key itself, which
/// is shown once when made; `hint` is its last four characters.
public struct DeveloperAPIKey: Sendable, Equatable {
    public var id: UUID
    public var developerID: String
    public var name: String
    public var scopes: Set<DeveloperScope>
    public var hint: String
    public var createdBy: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
}

public enum DeveloperDirectoryError: Error, Equatable, CustomStringConvertible {
    case invalidID(String)
    case idTaken(String)
    case invalidName
    case invalidCommission(Int)
    case unknownDeveloper(String)
    case unknownAccount
    /// The account already belongs to an organisation (an account belongs to at most one).
    case alreadyMember(developerID: String)
    case invalidKeyName

    public var description: String {
        switch self {
        case .invalidID(let id): "“\(id)” is not a developer id: 1–64 lower-case letters, digits and dashes"
        case .idTaken(let id): "a developer with id “\(id)” exists already"
        case .invalidName: "the name must be 1–200 characters"
        case .invalidCommission(let value): "commission \(value) is not a percentage from 0 to 100"
        case .unknownDeveloper(let id): "no developer has id “\(id)”"
        case .unknownAccount: "no account has that email"
        case .alreadyMember(let id): "the account is already a member of “\(id)”"
        case .invalidKeyName: "a key's name is 1–100 characters"
        }
    }
}

/// Developer organisations, their members and their API keys. Every change is one statement whose
/// unique constraints decide races (two `add`s of the same id: one wins, the other is `idTaken`).
public struct DeveloperDirectory: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    // MARK: Organisations

    /// Makes an organisation; without `id`, one is made from the name (`Acme Games` → `acme-games`).
    public func create(name: String, id: String? = nil, commissionPercent: Int? = nil) async throws -> Developer {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(name.count) else { throw DeveloperDirectoryError.invalidName }
        guard let id = id ?? DeveloperID.slug(of: name), DeveloperID.isValid(id) else {
            throw DeveloperDirectoryError.invalidID(id ?? name)
        }
        if let commissionPercent, !(0...100).contains(commissionPercent) {
            throw DeveloperDirectoryError.invalidCommission(commissionPercent)
        }
        let developer = Developer(id: id, name: name, commissionPercent: commissionPercent, createdAt: now())
        let inserted = try await database.sql.raw("""
            INSERT INTO developers (id, name, commission_percent, created_at)
            VALUES (\(bind: id), \(bind: name), \(bind: commissionPercent), \(bind: developer.createdAt))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """).first()
        guard inserted != nil else { throw DeveloperDirectoryError.idTaken(id) }
        return developer
    }

    public func find(_ id: String) async throws -> Developer? {
        try await database.sql.raw("SELECT * FROM developers WHERE id = \(bind: id)").first().map(Self.developer)
    }

    public func list() async throws -> [Developer] {
        try await database.sql.raw("SELECT * FROM developers ORDER BY name, id").all().map(Self.developer)
    }

    /// Sets (or with nil clears) an organisation's own commission; false when there is no such organisation.
    public func setCommission(_ percent: Int?, developer id: String) async throws -> Bool {
        if let percent, !(0...100).contains(percent) { throw DeveloperDirectoryError.invalidCommission(percent) }
        return try await database.sql.raw("""
            UPDATE developers SET commission_percent = \(bind: percent) WHERE id = \(bind: id) RETURNING id
            """).first() != nil
    }

    // MARK: Members

    /// Adds an account to an organisation. An account belongs to at most one organisation.
    public func addMember(developer id: String, accountID: UUID, role: DeveloperRole) async throws -> DeveloperMember {
        guard try await find(id) != nil else { throw DeveloperDirectoryError.unknownDeveloper(id) }
        guard let email = try await database.sql.raw("SELECT email FROM accounts WHERE id = \(bind: accountID)").first()?
            .decode(column: "email", as: String.self) else { throw DeveloperDirectoryError.unknownAccount }
        let member = DeveloperMember(id: UUID(), developerID: id, accountID: accountID, email: email, role: role, createdAt: now())
        let inserted = try await database.sql.raw("""
            INSERT INTO developer_members (id, developer_id, account_id, role, created_at)
            VALUES (\(bind: member.id), \(bind: id), \(bind: accountID), \(bind: role.rawValue), \(bind: member.createdAt))
            ON CONFLICT (account_id) DO NOTHING RETURNING id
            """).first()
        guard inserted != nil else {
            let existing = try await membership(accountID: accountID)
            throw DeveloperDirectoryError.alreadyMember(developerID: existing?.developerID ?? "")
        }
        return member
    }

    /// The organisation an account is a member of, if any: what opens `/developer` to it.
    public func membership(accountID: UUID) async throws -> DeveloperMember? {
        try await database.sql.raw("""
            SELECT m.id, m.developer_id, m.account_id, a.email, m.role, m.created_at
            FROM developer_members m JOIN accounts a ON a.id = m.account_id WHERE m.account_id = \(bind: accountID)
            """).first().map(Self.member)
    }

    public func members(of id: String) async throws -> [DeveloperMember] {
        try await database.sql.raw("""
            SELECT m.id, m.developer_id, m.account_id, a.email, m.role, m.created_at
            FROM developer_members m JOIN accounts a ON a.id = m.account_id WHERE m.developer_id = \(bind: id)
            ORDER BY a.email
            """).all().map(Self.member)
    }

    /// Removes an account from an organisation; false when it was not a member of that one.
    public func removeMember(developer id: String, accountID: UUID) async throws -> Bool {
        try await database.sql.raw("""
            DELETE FROM developer_members WHERE developer_id = \(bind: id) AND account_id = \(bind: accountID) RETURNING id
            """).first() != nil
    }

    // MARK: What an organisation owns

    /// Gives a marketplace app to an organisation (nil: back to the marketplace); false: no such app.
    public func setAppDeveloper(appleItemId: UInt64, developer id: String?) async throws -> Bool {
        if let id, try await find(id) == nil { throw DeveloperDirectoryError.unknownDeveloper(id) }
        return try await database.sql.raw("""
            UPDATE apps SET developer_id = \(bind: id) WHERE apple_item_id = \(bind: AppleIDColumn.store(appleItemId)) RETURNING id
            """).first() != nil
    }

    /// Gives an in-app catalog (by its app's bundle id or package name) to an organisation; false: no such catalog.
    @discardableResult
    public func setCatalogDeveloper(app: String, developer id: String?) async throws -> Bool {
        try await moveCatalog(app: app, to: id) != nil
    }

    /// Gives an in-app catalog to an organisation (nil: back to the marketplace); nil: no such
    /// catalog. When the owner changes, the catalog's sealed store credentials go in the same
    /// transaction: they open the previous owner's store accounts, which the new owner must not use
    /// nor see the hints of (docs/developers.md, "Store credentials").
    public func moveCatalog(app: String, to id: String?) async throws -> CatalogMove? {
        if let id, try await find(id) == nil { throw DeveloperDirectoryError.unknownDeveloper(id) }
        return try await database.transaction { db in
            let sql = db as! any SQLDatabase
            guard let row = try await sql.raw("SELECT developer_id FROM commerce_apps WHERE app = \(bind: app)").first() else { return nil }
            let before = try row.decode(column: "developer_id", as: String?.self)
            guard before != id else { return CatalogMove(before: before, credentialsRemoved: 0) }
            try await sql.raw("UPDATE commerce_apps SET developer_id = \(bind: id) WHERE app = \(bind: app)").run()
            let removed = try await sql.raw("DELETE FROM store_credentials WHERE app = \(bind: app) RETURNING kind").all().count
            return CatalogMove(before: before, credentialsRemoved: removed)
        }
    }

    /// The AppleItemIDs of an organisation's marketplace apps, ascending.
    public func appleItemIds(of id: String) async throws -> [UInt64] {
        try await database.sql.raw("SELECT apple_item_id FROM apps WHERE developer_id = \(bind: id) ORDER BY apple_item_id").all()
            .map { AppleIDColumn.load(try $0.decode(column: "apple_item_id", as: Int64.self)) }
    }

    /// The in-app catalogs (bundle ids / package names) an organisation owns, sorted.
    public func catalogs(of id: String) async throws -> [String] {
        try await database.sql.raw("SELECT app FROM commerce_apps WHERE developer_id = \(bind: id) ORDER BY app").all()
            .map { try $0.decode(column: "app", as: String.self) }
    }

    /// The organisation that owns a marketplace app; nil: the marketplace's own, or no such app.
    public func owner(appleItemId: UInt64) async throws -> String? {
        try await database.sql.raw("SELECT developer_id FROM apps WHERE apple_item_id = \(bind: AppleIDColumn.store(appleItemId))")
            .first()?.decode(column: "developer_id", as: String?.self)
    }

    /// The organisation that owns an in-app catalog; nil: the marketplace's own, or no such catalog.
    public func owner(catalog app: String) async throws -> String? {
        try await database.sql.raw("SELECT developer_id FROM commerce_apps WHERE app = \(bind: app)")
            .first()?.decode(column: "developer_id", as: String?.self)
    }

    // MARK: API keys

    /// Makes an API key; the key itself is returned here only (only its SHA-256 is kept).
    public func createKey(developer id: String, name: String, scopes: Set<DeveloperScope>,
                          createdBy actor: SoukActor) async throws -> (key: DeveloperAPIKey, secret: String) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else { throw DeveloperDirectoryError.invalidKeyName }
        guard try await find(id) != nil else { throw DeveloperDirectoryError.unknownDeveloper(id) }
        let secret = OpaqueToken.generate(.developerKey)
        let key = DeveloperAPIKey(id: UUID(), developerID: id, name: name, scopes: scopes, hint: String(secret.suffix(4)),
                                  createdBy: actor.auditName, createdAt: now(), lastUsedAt: nil, revokedAt: nil)
        try await database.sql.raw("""
            INSERT INTO developer_api_keys (id, developer_id, name, scopes, token_hash, hint, created_by, created_at)
            VALUES (\(bind: key.id), \(bind: id), \(bind: name), \(bind: DeveloperScope.format(scopes)),
                    \(bind: OpaqueToken.hash(secret)), \(bind: key.hint), \(bind: key.createdBy), \(bind: key.createdAt))
            """).run()
        return (key, secret)
    }

    /// An organisation's keys, revoked ones included, newest first.
    public func keys(of id: String) async throws -> [DeveloperAPIKey] {
        try await database.sql.raw("""
            SELECT * FROM developer_api_keys WHERE developer_id = \(bind: id) ORDER BY created_at DESC, id
            """).all().map(Self.key)
    }

    public func key(_ keyID: UUID) async throws -> DeveloperAPIKey? {
        try await database.sql.raw("SELECT * FROM developer_api_keys WHERE id = \(bind: keyID)").first().map(Self.key)
    }

    /// Revokes a key at once; with `developer`, only that organisation's key. False: no such live key.
    public func revokeKey(_ keyID: UUID, developer id: String? = nil) async throws -> Bool {
        if let id {
            return try await database.sql.raw("""
                UPDATE developer_api_keys SET revoked_at = \(bind: now())
                WHERE id = \(bind: keyID) AND developer_id = \(bind: id) AND revoked_at IS NULL RETURNING id
                """).first() != nil
        }
        return try await database.sql.raw("""
            UPDATE developer_api_keys SET revoked_at = \(bind: now()) WHERE id = \(bind: keyID) AND revoked_at IS NULL RETURNING id
            """).first() != nil
    }

    /// The live key a bearer secret is, by its SHA-256; nil for an unknown or revoked key. Records
    /// when it was last used, at most once a minute a key (a write per request would cost more than
    /// the request).
    public func authenticate(secret: String) async throws -> DeveloperAPIKey? {
        guard secret.hasPrefix(OpaqueToken.Kind.developerKey.rawValue), secret.count < 200 else { return nil }
        guard var key = try await database.sql.raw("""
            SELECT * FROM developer_api_keys WHERE token_hash = \(bind: OpaqueToken.hash(secret)) AND revoked_at IS NULL
            """).first().map(Self.key) else { return nil }
        let at = now()
        if key.lastUsedAt.map({ at.timeIntervalSince($0) >= 60 }) ?? true {
            try await database.sql.raw("UPDATE developer_api_keys SET last_used_at = \(bind: at) WHERE id = \(bind: key.id)").run()
            key.lastUsedAt = at
        }
        return key
    }

    // MARK: Rows

    static func developer(_ row: any SQLRow) throws -> Developer {
        Developer(id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                  commissionPercent: try row.decode(column: "commission_percent", as: Int?.self),
                  createdAt: try row.decode(column: "created_at", as: Date.self))
    }

    static func member(_ row: any SQLRow) throws -> DeveloperMember {
        DeveloperMember(id: try row.decode(column: "id", as: UUID.self), developerID: try row.decode(column: "developer_id", as: String.self),
                        accountID: try row.decode(column: "account_id", as: UUID.self), email: try row.decode(column: "email", as: String.self),
                        role: DeveloperRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .member,
                        createdAt: try row.decode(column: "created_at", as: Date.self))
    }

    static func key(_ row: any SQLRow) throws -> DeveloperAPIKey {
        DeveloperAPIKey(id: try row.decode(column: "id", as: UUID.self), developerID: try row.decode(column: "developer_id", as: String.self),
                        name: try row.decode(column: "name", as: String.self),
                        scopes: DeveloperScope.parseList(try row.decode(column: "scopes", as: String.self)) ?? [],
                        hint: try row.decode(column: "hint", as: String.self), createdBy: try row.decode(column: "created_by", as: String.self),
                        createdAt: try row.decode(column: "created_at", as: Date.self),
                        lastUsedAt: try row.decode(column: "last_used_at", as: Date?.self),
                        revokedAt: try row.decode(column: "revoked_at", as: Date?.self))
    }
}
