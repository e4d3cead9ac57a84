import Foundation
import FluentKit
import SQLKit

/// A person deleting their own account. The account row stays — licenses,
/// purchases, orders and receipts point at it, and the marketplace must keep its sales records —
/// but nothing personal remains on it and nobody can use it again: the email becomes
/// `deleted-<id>@deleted.invalid` (so the address may sign up again as a new account), no password
/// matches, it is disabled (every token stops at once: the auth revision moves), and its website
/// sessions end. Licenses already on devices run to their end and are never renewed.
public struct AccountClosure: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// The address a deleted account is left with.
    public static func placeholderEmail(_ id: UUID) -> String {
        "deleted-\(id.uuidString.lowercased())@deleted.invalid"
    }

    public static func isClosed(_ account: AccountModel) -> Bool {
        account.email.hasSuffix("@deleted.invalid")
    }

    /// Closes the account in one transaction; false when it was closed already.
    @discardableResult
    public func close(accountID: UUID) async throws -> Bool {
        try await database.transaction { db in
            let sql = db as! any SQLDatabase
            let changed = try await sql.raw("""
                UPDATE accounts SET email = \(bind: Self.placeholderEmail(accountID)), password_hash = '!', disabled = \(bind: true)
                WHERE id = \(bind: accountID) AND email <> \(bind: Self.placeholderEmail(accountID)) RETURNING id
                """).first() != nil
            try await sql.raw("DELETE FROM web_sessions WHERE account_id = \(bind: accountID)").run()
            return changed
        }
    }
}
