import Foundation
import SQLKit
import SoukCore

/// Password reset links (docs/web.md, "Reset links"): a staff member asks for one in the console and
/// passes it on; the person opens `/reset/<token>` and chooses their own password. A link is valid
/// for `lifetime` (24 hours), taken at most once, and replaced by a newer one; only its token's
/// SHA-256 is stored. Making one also stops the old password, so whoever knew it cannot sign in again.
public struct PasswordResetLinks: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    public let lifetime: TimeInterval

    public init(database: SoukDatabase, lifetime: TimeInterval = 24 * 3600, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.lifetime = lifetime
        self.now = now
    }

    /// A new link's token (shown once) and when it stops working.
    public struct Made: Sendable {
        public var token: String
        public var expiresAt: Date
    }

    /// Makes a link for the account in one transaction: earlier links end and the password stops
    /// matching (`!` is no bcrypt hash).
    public func make(account: UUID) async throws -> Made {
        let token = OpaqueToken.generate(.passwordReset)
        let at = now()
        let made = Made(token: token, expiresAt: at.addingTimeInterval(lifetime))
        try await database.transaction { db in
            let sql = db as! any SQLDatabase
            try await sql.raw("DELETE FROM password_reset_links WHERE account_id = \(bind: account)").run()
            try await sql.raw("UPDATE accounts SET password_hash = '!' WHERE id = \(bind: account)").run()
            try await sql.raw("""
                INSERT INTO password_reset_links (id, account_id, token_hash, created_at, expires_at)
                VALUES (\(bind: UUID()), \(bind: account), \(bind: OpaqueToken.hash(token)), \(bind: at), \(bind: made.expiresAt))
                """).run()
        }
        return made
    }

    /// Ends the account's links (a password set another way: a link must not replace it later).
    public func cancel(account: UUID) async throws {
        try await database.sql.raw("DELETE FROM password_reset_links WHERE account_id = \(bind: account)").run()
    }

    /// The account a link is for, while it is unused and unexpired; nil otherwise.
    public func account(token: String) async throws -> UUID? {
        try await database.sql.raw("""
            SELECT account_id FROM password_reset_links
            WHERE token_hash = \(bind: OpaqueToken.hash(token)) AND used_at IS NULL AND expires_at > \(bind: now())
            """).first()?.decode(column: "account_id", as: UUID.self)
    }

    /// Takes the link and sets the account's password to `passwordHash`, in one transaction; the
    /// account's id, or nil when the link is unknown, used, replaced or expired (nothing changes).
    public func use(token: String, passwordHash: String) async throws -> UUID? {
        let at = now()
        return try await database.transaction { db in
            let sql = db as! any SQLDatabase
            // One conditional statement: of two racing uses, one finds the link unused.
            guard let account = try await sql.raw("""
                UPDATE password_reset_links SET used_at = \(bind: at)
                WHERE token_hash = \(bind: OpaqueToken.hash(token)) AND used_at IS NULL AND expires_at > \(bind: at)
                RETURNING account_id
                """).first()?.decode(column: "account_id", as: UUID.self) else { return nil }
            try await sql.raw("UPDATE accounts SET password_hash = \(bind: passwordHash) WHERE id = \(bind: account)").run()
            return account
        }
    }
}
