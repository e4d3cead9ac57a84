import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Bcrypt (cost 12, about a quarter of a second) on NIO's thread pool, never on the threads that
/// answer requests. Every hash and check the server makes goes through here; the CLI may hash
/// directly (`PasswordHashing`), it answers no one else meanwhile.
enum PasswordHasher {
    /// Hashes a new password after `PasswordHashing`'s length rules (which throw a `PasswordRuleError`).
    static func hash(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { try PasswordHashing.hash(password) }
    }

    static func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A hash no password matches, checked for sign-ins with an unknown email so that their timing
    /// says nothing about which accounts exist. Computed once, on the thread pool; `startDummyHash()`
    /// begins it when the routes are built, so the first unknown email does not wait for it.
    static func dummyHash() async throws -> String {
        try await dummy.value
    }

    static func startDummyHash() {
        _ = dummy
    }

    private static let dummy = Task {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash("souk: no such account \(UUID())", cost: 12) }
    }
}

/// Password rules and hashing (Bcrypt, cost 12).
public enum PasswordHashing {
    public static let minimumLength = 8

    public static func hash(_ password: String) throws -> String {
        guard password.count >= minimumLength else {
            throw PasswordRuleError("the password must have at least \(minimumLength) characters")
        }
        guard password.utf8.count <= 72 else {
            throw PasswordRuleError("the password must be at most 72 bytes (Bcrypt's limit)")
        }
        return Bcrypt.hash(password, cost: 12)
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
