import Foundation
import SoukCore
import SoukStore

extension DeveloperOperations {
    /// The newest `limit` paid-app sales (and refunds of them) of the organisation's marketplace
    /// apps, buyers by account token (`purchases:read`).
    public func paidAppSales(actor: SoukActor, limit: Int = 200) async throws -> [PaidAppSale] {
        try DeveloperOwnership.authorize(actor, .purchasesRead)
        return try await PaidAppSales(database: database, now: now).sales(developer: try organisation(of: actor), limit: limit)
    }
}
