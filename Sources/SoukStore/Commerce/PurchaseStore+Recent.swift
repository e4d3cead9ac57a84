import Foundation
import SQLKit

extension PurchaseStore {
    /// The newest `limit` purchases of an app that the stores verified (`granted`: refused and
    /// pending reports left out), newest first: what a developer's purchases list shows.
    public func recentGranted(app: String, limit: Int) async throws -> [StoredPurchase] {
        try await database.sql.select().column(SQLRaw(StoredPurchase.columns)).from("purchases")
            .where("app", .equal, app).where("status", .equal, PurchaseStatus.granted.rawValue)
            .orderBy("created_at", .descending).orderBy("id", .descending).limit(limit).all().map(StoredPurchase.decode)
    }
}
