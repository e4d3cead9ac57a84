import Foundation
import SoukApp
import SoukCore
import SoukStore

/// What `GET /api/v1/account` says about the person beyond who the token belongs to, for the
/// marketplace app's account screen: `id`, `devices` (signed-in devices, as the account page lists
/// them), `purchases` (the entries of `GET /api/v1/purchases`), `memberships` (plans started, not
/// pending) and `entitlements` (what the marketplace catalog opens for them now).
struct AccountAPIDetails: Sendable {
    let tokens: TokenStore
    let orders: MarketplaceOrderStore
    let plans: MarketplaceSubscriptionStore
    let entitlements: EntitlementIndex
    let commerceCatalogs: CommerceCatalogCache
    let now: @Sendable () -> Date

    func fields(_ account: AccountRecord) async throws -> [String: Any] {
        let accountID = account.id
        let devices = try await tokens.devices(accountID: accountID).map { device -> [String: Any] in
            var entry: [String: Any] = ["clientId": device.clientId, "signedInAt": RFC3339.format(device.signedInAt)]
            if let used = device.lastUsedAt { entry["lastUsedAt"] = RFC3339.format(used) }
            return entry
        }
        let receipts = try await Receipt.all(account: accountID, orders: orders, plans: plans).map(\.json)
        let at = now()
        let memberships = try await plans.subscriptions(account: accountID).filter { !$0.pending }.map { plan -> [String: Any] in
            ["id": plan.id.uuidString.lowercased(), "productId": plan.productId, "state": plan.state.rawValue,
             "active": plan.isLive && plan.state != .billingRetry && plan.expiresAt > at, "willRenew": plan.willRenew,
             "expiresAt": RFC3339.format(plan.expiresAt), "sandbox": plan.sandbox,
             "price": ["currency": plan.price.currency, "amount": plan.price.amount, "formatted": plan.price.formatted],
             "period": plan.period.description]
        }
        return ["id": accountID.uuidString.lowercased(), "devices": devices, "purchases": receipts, "memberships": memberships,
                "entitlements": try await marketplaceEntitlements(account, at: at)]
    }

    /// The marketplace catalog's entitlements the account holds now, by id.
    func marketplaceEntitlements(_ account: AccountRecord, at: Date) async throws -> [[String: Any]] {
        guard let marketplace = try await commerceCatalogs.state(app: AppPricing.marketplaceApp) else { return [] }
        let environments = EntitlementEngine.environments(accountIsSandbox: account.sandbox, allowSandbox: marketplace.catalog.allowSandbox)
        let snapshot = try await entitlements.snapshot(account: account.id, app: marketplace.app, catalog: marketplace,
                                                       environments: environments, at: at)
        return snapshot.entitlements.sorted { $0.key < $1.key }.map { id, access in
            var entry: [String: Any] = ["id": id, "title": marketplace.catalog.entitlements.first { $0.id == id }?.title ?? id,
                                        "source": access.isGrant ? "grant" : "purchase", "environment": access.environment.rawValue]
            if let expires = access.expiresAt { entry["expiresAt"] = RFC3339.format(expires) }
            return entry
        }
    }
}
