import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// Membership plans sold by the marketplace (development processor), on both databases, with an
/// injected clock — never a sleep: Apple's accelerated sandbox renewals, 12 then the end; a failed
/// renewal into billing retry or a grace period; the sandbox clock; refund and clear; all seen by
/// the entitlement engine as the `marketplace` catalog's purchases.
@Suite struct MarketplaceSubscriptionStoreTests {
    static let plan = ProductDefinition(id: "member.monthly", type: .autoRenewable, group: "membership", level: 1, period: ISODuration(months: 1),
                                        prices: [Price(currency: "USD", amount: 499)], entitlements: ["member"])
    static let catalog = CommerceCatalog(app: AppPricing.marketplaceApp, entitlements: [EntitlementDefinition(id: "member", title: "Member")],
                                         products: [plan])

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (PurchaseStore, MarketplaceSubscriptionStore, CommerceCatalogState,
                                                                          UUID, TestClock) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let catalogs = CommerceCatalogStore(database: fixture.database)
            _ = try await catalogs.apply(Self.catalog)
            let account = AccountModel(email: "sandbox@example.com", passwordHash: "x")
            account.sandbox = true
            try await account.create(on: fixture.database.db)
            let clock = TestClock()
            let purchases = PurchaseStore(database: fixture.database, now: { clock.now })
            try await body(purchases, MarketplaceSubscriptionStore(purchases: purchases), try #require(try await catalogs.state(app: AppPricing.marketplaceApp)),
                           try account.requireID(), clock)
        }
    }

    static func member(_ purchases: PurchaseStore, _ catalog: CommerceCatalogState, _ account: UUID, _ clock: TestClock) async throws -> Bool {
        let records = try await purchases.grantedRecords(account: account, app: AppPricing.marketplaceApp)
        return EntitlementEngine.evaluate(records, catalog: catalog, environments: [.sandbox], at: clock.now).entitlements["member"] != nil
    }

    @Test(arguments: TestBackend.available)
    func aSandboxPlanRenewsTwelveTimesThenEnds(backend: TestBackend) async throws {
        try await Self.with(backend) { purchases, store, catalog, account, clock in
            let started = try await store.start(account: account, product: Self.plan, price: Price(currency: "USD", amount: 499), sandbox: true,
                                                processor: "development")
            #expect(started.expiresAt == clock.now.addingTimeInterval(300) && started.environment == .sandbox)
            #expect(try await Self.member(purchases, catalog, account, clock))
            clock.advance(301)
            #expect(try await store.renewDue() == 1)
            #expect(try await store.subscriptions(account: account).first?.renewals == 1)
            // An hour later: the 12 renewals are caught up, and then it ends.
            clock.advance(3600)
            try await store.renewDue()
            let ended = try #require(try await store.subscriptions(account: account).first)
            #expect(ended.renewals == 12 && ended.state == .expired && !ended.willRenew)
            #expect(!(try await Self.member(purchases, catalog, account, clock)))
            #expect(try await store.renewDue() == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func aFailedRenewalIsBillingRetryOrGraceThenALapse(backend: TestBackend) async throws {
        try await Self.with(backend) { purchases, store, catalog, account, clock in
            let price = Price(currency: "USD", amount: 499)
            _ = try await store.start(account: account, product: Self.plan, price: price, sandbox: true, processor: "development")
            #expect(try await store.sandbox(.failRenewal(grace: true), account: account, productId: Self.plan.id))
            clock.advance(301)
            try await store.renewDue()
            #expect(try await store.subscriptions(account: account).first?.state == .gracePeriod)
            #expect(try await Self.member(purchases, catalog, account, clock))  // grace keeps access
            clock.advance(300)
            try await store.renewDue()
            #expect(try await store.subscriptions(account: account).first?.state == .expired)
            #expect(!(try await Self.member(purchases, catalog, account, clock)))

            // Billing retry loses access at once; the sandbox clock moves sandbox time only.
            #expect(try await store.clearSandbox(account: account, productId: nil) == 1)
            _ = try await store.start(account: account, product: Self.plan, price: price, sandbox: true, processor: "development")
            #expect(try await store.sandbox(.failRenewal(grace: false), account: account, productId: Self.plan.id))
            #expect(try await store.advanceSandbox(minutes: 6) == 6 * 60)
            #expect(try await store.subscriptions(account: account).first?.state == .billingRetry)
            #expect(!(try await Self.member(purchases, catalog, account, clock)))

            // Cancel and refund.
            #expect(try await store.clearSandbox(account: account, productId: Self.plan.id) == 1)
            _ = try await store.start(account: account, product: Self.plan, price: price, sandbox: true, processor: "development")
            #expect(try await store.sandbox(.cancel, account: account, productId: Self.plan.id))
            #expect(try await Self.member(purchases, catalog, account, clock))
            clock.advance(301)
            try await store.renewDue()
            #expect(try await store.subscriptions(account: account).first?.state == .expired)
            #expect(try await store.clearSandbox(account: account, productId: nil) == 1)
            _ = try await store.start(account: account, product: Self.plan, price: price, sandbox: true, processor: "development")
            #expect(try await store.sandbox(.refund, account: account, productId: Self.plan.id))
            #expect(!(try await Self.member(purchases, catalog, account, clock)))
            #expect(!(try await store.sandbox(.cancel, account: account, productId: Self.plan.id)))  // nothing live to cancel
        }
    }

    @Test(arguments: TestBackend.available)
    func aProductionPlanRenewsOnItsOwnPeriodWithoutEnd(backend: TestBackend) async throws {
        try await Self.with(backend) { _, store, _, account, clock in
            let started = try await store.start(account: account, product: Self.plan, price: Price(currency: "USD", amount: 499), sandbox: false,
                                                processor: "development")
            #expect(started.expiresAt.timeIntervalSince(clock.now) > 27 * 86_400)
            clock.advance(20 * 31 * 86_400)
            try await store.renewDue()
            let renewed = try #require(try await store.subscriptions(account: account).first)
            #expect(renewed.renewals >= 19 && renewed.state == .active && renewed.expiresAt > clock.now)
            // The sandbox clock leaves it alone.
            _ = try await store.advanceSandbox(minutes: 60)
            #expect(try await store.subscriptions(account: account).first?.expiresAt == renewed.expiresAt)
        }
    }
}
