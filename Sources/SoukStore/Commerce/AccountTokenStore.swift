import Foundation
import SQLKit

/// Each person's account token per app: a random UUID made the first time it is asked for and
/// never changed, so every purchase the app makes carries the same one (StoreKit's
/// `appAccountToken`, Play Billing's `obfuscatedAccountId`). It names no one outside Souk: a store
/// that leaks it leaks nothing about the person.
public struct AccountTokenStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// The account's token in `app`, made now if it has none (parallel first calls agree: the
    /// unique `(account_id, app)` keeps the first one written).
    public func token(account: UUID, app: String) async throws -> UUID {
        let sql = database.sql
        if let known = try await Self.token(account: account, app: app, on: sql) { return known }
        try await sql.raw("""
            INSERT INTO account_tokens (account_id, app, token, created_at)
            VALUES (\(bind: account), \(bind: app), \(bind: UUID().uuidString.lowercased()), \(bind: now()))
            ON CONFLICT (account_id, app) DO NOTHING
            """).run()
        guard let made = try await Self.token(account: account, app: app, on: sql) else {
            throw PurchaseStoreError("account token of \(account) in \(app) not found after it was written")
        }
        return made
    }

    /// The account whose token in `app` is `token` (any spelling of the UUID), or nil: not a Souk
    /// account token of this app.
    public func account(token: String, app: String) async throws -> UUID? {
        guard let uuid = UUID(uuidString: token.trimmingCharacters(in: .whitespaces)) else { return nil }
        return try await database.sql.raw("""
            SELECT account_id FROM account_tokens WHERE app = \(bind: app) AND token = \(bind: uuid.uuidString.lowercased())
            """).first()?.decode(column: "account_id", as: UUID.self)
    }

    static func token(account: UUID, app: String, on sql: any SQLDatabase) async throws -> UUID? {
        let text = try await sql.raw("""
            SELECT token FROM account_tokens WHERE account_id = \(bind: account) AND app = \(bind: app)
            """).first()?.decode(column: "token", as: String.self)
        return text.flatMap(UUID.init(uuidString:))
    }
}
