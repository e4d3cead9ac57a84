import Foundation
import SQLKit

extension TokenStore {
    /// The account an ID token names, with what the commerce paths ask of it, when it still exists
    /// and is not disabled (an ID token cannot be revoked, but its account can go). One indexed query.
    public func signedInAccount(_ accountID: UUID) async throws -> (email: String, sandbox: Bool)? {
        guard let row = try await sql.raw("""
            SELECT email, sandbox, disabled FROM accounts WHERE id = \(bind: accountID)
            """).first(), try !row.decode(column: "disabled", as: Bool.self) else { return nil }
        return (try row.decode(column: "email", as: String.self), try row.decode(column: "sandbox", as: Bool.self))
    }
}
