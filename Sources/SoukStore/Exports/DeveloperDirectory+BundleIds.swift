import Foundation
import SQLKit

extension DeveloperDirectory {
    /// Whether the marketplace has an app with this bundle id (any organisation's, or its own).
    public func appExists(bundleId: String) async throws -> Bool {
        try await database.sql.raw("SELECT 1 AS found FROM apps WHERE bundle_id = \(bind: bundleId) LIMIT 1").first() != nil
    }
}
