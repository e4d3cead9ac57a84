import Crypto
import Foundation
import SQLKit
import SoukCore

/// An account's TOTP second factor: enrolment, confirmation, codes taken once, recovery
/// codes, reset, and the web session's "second factor given" mark. Every change is one conditional
/// statement, so a replayed code or recovery code (or two racing requests) succeeds at most once.
public struct TOTPStore: Sendable {
    let database: SoukDatabase
    /// The sealing key, read when a secret is sealed or opened (the keys folder's `totp-secret.key`).
    let box: @Sendable () throws -> TOTPSecretBox
    let now: @Sendable () -> Date

    public static let recoveryCodeCount = 10

    public init(database: SoukDatabase, box: TOTPSecretBox, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.box = { box }
        self.now = now
    }

    /// A store whose key is in `keysDir`, made on first use.
    public init(database: SoukDatabase, keysDir: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.box = { try TOTPSecretBox.loadOrCreate(keysDir: keysDir) }
        self.now = now
    }

    /// The secret being enrolled (not yet confirmed): the one already started, or a new one.
    /// Nil when TOTP is already on for the account.
    public func pendingSecret(account: UUID) async throws -> [UInt8]? {
        guard let row = try await database.sql.raw("SELECT totp_secret, totp_enabled FROM accounts WHERE id = \(bind: account)").first(),
              try !row.decode(column: "totp_enabled", as: Bool.self) else { return nil }
        if let sealed = try row.decode(column: "totp_secret", as: String?.self), let secret = try box().open(sealed) { return secret }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Only the first of two racing page loads stores its secret; both then show the stored one.
        try await database.sql.raw("""
            UPDATE accounts SET totp_secret = \(bind: try box().seal(secret))
            WHERE id = \(bind: account) AND totp_enabled = \(bind: false) AND totp_secret IS NULL
            """).run()
        guard let stored = try await database.sql.raw("SELECT totp_secret FROM accounts WHERE id = \(bind: account)").first()?
            .decode(column: "totp_secret", as: String?.self) else { return nil }
        return try box().open(stored)
    }

    /// Turns TOTP on when `code` is the pending secret's current code; returns the ten recovery
    /// codes (shown once), or nil when the code is wrong or TOTP was already on.
    public func confirm(account: UUID, code: String) async throws -> [String]? {
        guard let secret = try await pendingSecret(account: account),
              let step = TOTP.matchingStep(secret: secret, candidate: code, at: now()) else { return nil }
        let enabled = try await database.sql.raw("""
            UPDATE accounts SET totp_enabled = \(bind: true), totp_last_step = \(bind: step)
            WHERE id = \(bind: account) AND totp_enabled = \(bind: false) RETURNING id
            """).first()
        guard enabled != nil else { return nil }
        return try await replaceRecoveryCodes(account: account)
    }

    /// Whether `code` is a current code the account has not used yet; a match is used up at once.
    public func verify(account: UUID, code: String) async throws -> Bool {
        guard let row = try await database.sql.raw("SELECT totp_secret, totp_enabled FROM accounts WHERE id = \(bind: account)").first(),
              try row.decode(column: "totp_enabled", as: Bool.self),
              let sealed = try row.decode(column: "totp_secret", as: String?.self), let secret = try box().open(sealed),
              let step = TOTP.matchingStep(secret: secret, candidate: code, at: now()) else { return false }
        let used = try await database.sql.raw("""
            UPDATE accounts SET totp_last_step = \(bind: step)
            WHERE id = \(bind: account) AND totp_enabled = \(bind: true) AND (totp_last_step IS NULL OR totp_last_step < \(bind: step))
            RETURNING id
            """).first()
        return used != nil
    }

    /// Whether `code` is one of the account's unused recovery codes; a match is used up at once.
    public func useRecoveryCode(account: UUID, code: String) async throws -> Bool {
        let used = try await database.sql.raw("""
            UPDATE totp_recovery_codes SET used_at = \(bind: now())
            WHERE account_id = \(bind: account) AND code_hash = \(bind: Self.hash(recoveryCode: code)) AND used_at IS NULL
            RETURNING id
            """).first()
        return used != nil
    }

    /// Recovery codes not yet used.
    public func unusedRecoveryCodes(account: UUID) async throws -> Int {
        try await database.sql.raw("""
            SELECT COUNT(*) AS n FROM totp_recovery_codes WHERE account_id = \(bind: account) AND used_at IS NULL
            """).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Turns TOTP off and forgets the secret and recovery codes. Returns whether it was on (or being enrolled).
    @discardableResult
    public func reset(account: UUID) async throws -> Bool {
        let was = try await database.sql.raw("""
            UPDATE accounts SET totp_enabled = \(bind: false), totp_secret = NULL, totp_last_step = NULL
            WHERE id = \(bind: account) AND (totp_enabled = \(bind: true) OR totp_secret IS NOT NULL) RETURNING id
            """).first()
        try await database.sql.raw("DELETE FROM totp_recovery_codes WHERE account_id = \(bind: account)").run()
        return was != nil
    }

    /// Marks the web session behind `sessionToken` (its cookie value) as having given the second factor.
    public func markSecondFactor(sessionToken: String) async throws {
        try await database.sql.raw("""
            UPDATE web_sessions SET second_factor_at = \(bind: now()) WHERE token_hash = \(bind: OpaqueToken.hash(sessionToken))
            """).run()
    }

    /// Whether the web session behind `sessionToken` has given the second factor.
    public func secondFactorGiven(sessionToken: String) async throws -> Bool {
        try await database.sql.raw("""
            SELECT second_factor_at FROM web_sessions WHERE token_hash = \(bind: OpaqueToken.hash(sessionToken))
            """).first()?.decode(column: "second_factor_at", as: Date?.self) != nil
    }

    private func replaceRecoveryCodes(account: UUID) async throws -> [String] {
        try await database.sql.raw("DELETE FROM totp_recovery_codes WHERE account_id = \(bind: account)").run()
        let codes = (0..<Self.recoveryCodeCount).map { _ in Self.newRecoveryCode() }
        for code in codes {
            try await database.sql.insert(into: "totp_recovery_codes").columns("id", "account_id", "code_hash", "used_at")
                .values(SQLBind(UUID()), SQLBind(account), SQLBind(Self.hash(recoveryCode: code)), SQLBind(Date?.none)).run()
        }
        return codes
    }

    /// `xxxxx-xxxxx` from base32's lower-case letters and digits (50 random bits).
    static func newRecoveryCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyz234567")
        let characters = (0..<10).map { _ in letters[Int.random(in: 0..<letters.count, using: &generator)] }
        return String(characters[0..<5]) + "-" + String(characters[5..<10])
    }

    /// What is stored of a recovery code: SHA-256 of it lower-cased, without spaces or dashes.
    static func hash(recoveryCode: String) -> String {
        let normalized = recoveryCode.lowercased().filter { $0 != "-" && !$0.isWhitespace }
        return Digest.hex(SHA256.hash(data: Data(normalized.utf8)))
    }
}
