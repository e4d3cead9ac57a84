import FluentKit
import Foundation
import SoukCore

/// An account with its password hash, for the one place that checks a password: the hash is read
/// for the check and goes nowhere else.
public struct AccountCredentials: Sendable {
    public var account: AccountRecord
    public var passwordHash: String
}

extension PeopleDirectory {
    /// The account with this email (compared lower-cased) and its password hash, or nil.
    public func credentials(email: String) async throws -> AccountCredentials? {
        try await AccountModel.find(email: email, on: database.db).map { AccountCredentials(account: try AccountRecord($0), passwordHash: $0.passwordHash) }
    }

    /// The account with this id and its password hash, or nil.
    public func credentials(id: UUID) async throws -> AccountCredentials? {
        try await AccountModel.find(id, on: database.db).map { AccountCredentials(account: try AccountRecord($0), passwordHash: $0.passwordHash) }
    }
}

extension AccountRecord {
    /// The one spelling of an email address Souk stores and looks up (`AccountModel`'s).
    public static func normalize(email: String) -> String {
        AccountModel.normalize(email: email)
    }
}
