import Foundation
import SoukCore
import SoukStore

/// Whether an account may have an app it must pay for, for licenses, renewals,
/// restore, updates and the resolution page: `PaymentRule` over what the account bought and its
/// membership in the marketplace's own catalog (`"app": "marketplace"`), read from the entitlement
/// index (memory; one query on a miss). Free apps cost no lookup at all.
///
/// An app is owned through a paid, unrefunded marketplace order (`MarketplaceOrderStore`, checkout).
package struct AppPayments: Sendable {
    package let orders: MarketplaceOrderStore
    package let index: EntitlementIndex
    package let catalogs: CommerceCatalogCache
    package let catalog: CatalogStore
    package let publicURL: String
    package let now: @Sendable () -> Date

    package init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date = { Date() }) {
        self.orders = MarketplaceOrderStore(database: runtime.database)
        self.index = runtime.entitlementIndex
        self.catalogs = runtime.commerceCatalogs
        self.catalog = runtime.catalog
        self.publicURL = runtime.config.publicURL
        self.now = now
    }

    /// Where a person pays for (or joins the membership that includes) the app.
    package func purchaseURL(_ app: CatalogApp) -> String {
        "\(publicURL)/apps/\(app.appleItemId)"
    }

    /// The verdict for `account` (nil: nobody signed in) on `app`.
    package func verdict(_ app: CatalogApp, account: AccountRecord?) async throws -> PaymentVerdict {
        guard !app.pricing.isFree else { return .open }
        guard let account else { return .purchaseRequired }
        let owned = !app.pricing.prices.isEmpty ? try await orders.owns(account: account.id, appleItemId: app.appleItemId) : false
        return PaymentRule.decide(app.pricing, owned: owned,
                                  membership: try await membership(app.pricing.requiresEntitlement, account: account))
    }

    /// The verdicts on the paid apps among `apps` that `accountID` (a bearer's) may not have, by
    /// AppleItemID; the account is read once, and only when some app is paid.
    package func unpaid(_ apps: [CatalogApp], accountID: UUID?) async throws -> [UInt64: PaymentVerdict] {
        let paid = apps.filter { !$0.pricing.isFree }
        guard !paid.isEmpty else { return [:] }
        let account = try await accountID.asyncMap { try await catalog.people.account(id: $0) } ?? nil
        var verdicts: [UInt64: PaymentVerdict] = [:]
        for app in paid {
            let verdict = try await verdict(app, account: account)
            if verdict != .open { verdicts[app.appleItemId] = verdict }
        }
        return verdicts
    }

    package func membership(_ entitlement: String?, account: AccountRecord) async throws -> MembershipState {
        guard let entitlement, let marketplace = try await catalogs.state(app: AppPricing.marketplaceApp) else { return .never }
        let accountID = account.id
        let environments = EntitlementEngine.environments(accountIsSandbox: account.sandbox, allowSandbox: marketplace.catalog.allowSandbox)
        let snapshot = try await index.snapshot(account: accountID, app: marketplace.app, catalog: marketplace, environments: environments,
                                                at: now())
        if snapshot.entitlements[entitlement] != nil { return .active }
        let records = try await index.records(account: accountID, app: marketplace.app)
        let had = records.contains { record in
            guard environments.contains(record.environment) else { return false }
            if let granted = record.grantedEntitlement { return granted == entitlement }
            return (marketplace.product(record.productId)?.entitlements ?? []).contains(entitlement)
        }
        return had ? .lapsed : .never
    }
}
