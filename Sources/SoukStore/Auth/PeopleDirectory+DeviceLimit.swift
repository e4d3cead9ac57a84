import Foundation
import SQLKit

extension PeopleDirectory {
    /// Sets how many devices the account may have live licenses on (nil: the server's default);
    /// returns whether the account exists.
    @discardableResult
    public func setDeviceLimit(_ limit: Int?, account: UUID) async throws -> Bool {
        try await database.sql.raw("""
            UPDATE accounts SET device_limit = \(bind: limit) WHERE id = \(bind: account) RETURNING id
            """).first() != nil
    }
}
