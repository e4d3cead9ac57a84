import Foundation
import SoukCore
import SoukStore

/// The purchases of an in-app catalog the actor reaches, read-only: sales, subscriptions and refunds,
/// the buyer named by their account token in the app, never by email.
package struct DeveloperPurchaseList: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    package struct Line: Sendable {
        package var purchase: StoredPurchase
        package var accountToken: UUID
    }

    /// The newest `limit` purchases the stores verified (refused and pending reports are left out).
    package func callAsFunction(actor: SoukActor, app: String, limit: Int = 200) async throws -> [Line] {
        let state = try await services.ownership.catalog(app, for: actor)
        let purchases = try await services.purchases.recentGranted(app: state.catalog.app, limit: limit)
        var tokens: [UUID: UUID] = [:]
        var lines: [Line] = []
        for purchase in purchases {
            if tokens[purchase.accountId] == nil {
                tokens[purchase.accountId] = try await services.accountTokens.token(account: purchase.accountId, app: purchase.app)
            }
            lines.append(Line(purchase: purchase, accountToken: tokens[purchase.accountId] ?? UUID()))
        }
        return lines
    }
}
