import Foundation
import HummingbirdBcrypt
import SoukStore

/// Bcrypt (cost 12, about a quarter of a second) on `BlockingWork`'s short-work threads: never behind
/// a package import, never on the threads that answer requests. Every hash and check the server
/// makes goes through here; the CLI may hash directly (`PasswordHashing`), it answers no one else
/// meanwhile.
package enum PasswordHasher {
    /// Hashes a new password after `PasswordHashing`'s rules (checked here, throwing a
    /// `PasswordRuleError`; only Bcrypt itself goes to the blocking pool).
    package static func hash(_ password: String) async throws -> String {
        try PasswordHashing.check(password)
        return try await BlockingWork.runShort { PasswordHashing.bcrypt(password) }
    }

    package static func verify(_ password: String, hash: String) async throws -> Bool {
        try await BlockingWork.runShort { PasswordHashing.verify(password, hash: hash) }
    }

    /// A hash no password matches, checked for sign-ins with an unknown email so that their timing
    /// says nothing about which accounts exist. Computed once, on the thread pool; `startDummyHash()`
    /// begins it when the routes are built, so the first unknown email does not wait for it.
    package static func dummyHash() async throws -> String {
        try await dummy.value
    }

    package static func startDummyHash() {
        _ = dummy
    }

    private static let dummy = Task {
        try await BlockingWork.runShort { PasswordHashing.bcrypt("souk: no such account \(UUID())") }
    }
}

/// Password rules and hashing (Bcrypt, cost 12).
public enum PasswordHashing {
    public static let minimumLength = 8

    /// Bcrypt reads at most this many bytes of a password.
    public static let maximumBytes = 72

    /// Throws a `PasswordRuleError` (a sentence for the person choosing the password) for a
    /// password Souk does not accept.
    public static func check(_ password: String) throws {
        guard password.count >= minimumLength else {
            throw PasswordRuleError("The password needs at least \(minimumLength) characters.")
        }
        guard password.utf8.count <= maximumBytes else {
            throw PasswordRuleError("The password may be at most \(maximumBytes) bytes long.")
        }
    }

    /// Checks the rules, then hashes (synchronously: for the CLI; the server uses `PasswordHasher`).
    public static func hash(_ password: String) throws -> String {
        try check(password)
        return bcrypt(password)
    }

    package static func bcrypt(_ password: String) -> String {
        Bcrypt.hash(password, cost: 12)
    }

    public static func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}

/// A password that breaks the rules, in words for the person choosing it.
public struct PasswordRuleError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
