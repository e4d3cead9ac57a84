import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Testing

/// One live or pending membership plan per account and plan group, on both databases: a plan in
/// billing retry or grace period still counts, a lapsed one does not (even before the renewal pass
/// saw it), many subscriptions at once start one plan, and the partial unique index refuses a
/// second live plan written around the store.
@Suite struct MarketplacePlanGroupTests {
    static let monthly = MarketplaceSubscriptionStoreTests.plan
    static let yearly = ProductDefinition(id: "member.yearly", type: .autoRenewable, group: "membership", level: 2, period: ISODuration(years: 1),
                                          prices: [Price(currency: "USD", amount: 4999)], entitlements: ["member"])
    static let price = Price(currency: "USD", amount: 499)

    static func isHeld(_ outcome: MarketplaceSubscriptionStore.StartOutcome) -> Bool {
        if case .held = outcome { return true }
        return false
    }

    @Test(arguments: TestBackend.available)
    func aPlanOfTheGroupIsHeldUntilItEndsBillingRetryIncluded(backend: TestBackend) async throws {
        try await MarketplaceSubscriptionStoreTests.with(backend) { _, store, _, account, clock in
            let group = [Self.monthly.id, Self.yearly.id]
            guard case .started(let started) = try await store.subscribe(account: account, product: Self.monthly, groupProducts: group,
                                                                         price: Self.price, sandbox: true, processor: "development") else {
                Issue.record("the first plan did not start")
                return
            }
            #expect(started.planGroup == "membership")
            // The same plan, and another plan of its group.
            #expect(Self.isHeld(try await store.subscribe(account: account, product: Self.monthly, price: Self.price, sandbox: true,
                                                          processor: "development")))
            #expect(Self.isHeld(try await store.subscribe(account: account, product: Self.yearly, groupProducts: group, price: Self.price,
                                                          sandbox: true, processor: "development")))
            // A failed renewal: billing retry opens nothing, but the plan is still held.
            #expect(try await store.sandbox(.failRenewal(grace: false), account: account, productId: Self.monthly.id))
            clock.advance(301)
            try await store.renewDue()
            #expect(try await store.subscriptions(account: account).first?.state == .billingRetry)
            #expect(Self.isHeld(try await store.subscribe(account: account, product: Self.monthly, groupProducts: group, price: Self.price,
                                                          sandbox: true, processor: "development")))
            // The retry period over, not yet seen by the renewal pass: the plan has ended, a new one starts.
            clock.advance(301)
            guard case .started = try await store.subscribe(account: account, product: Self.yearly, groupProducts: group, price: Self.price,
                                                            sandbox: true, processor: "development") else {
                Issue.record("a plan over its retry period still counted as held")
                return
            }
            let plans = try await store.subscriptions(account: account)
            #expect(plans.filter(\.isLive).map(\.productId) == [Self.yearly.id])
            #expect(plans.count == 2)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPendingCheckoutHoldsItsGroup(backend: TestBackend) async throws {
        try await MarketplaceSubscriptionStoreTests.with(backend) { _, store, _, account, _ in
            guard case .started(let pending) = try await store.subscribe(account: account, product: Self.monthly, price: Self.price, sandbox: false,
                                                                         processor: "stripe", pending: true) else {
                Issue.record("the pending plan did not start")
                return
            }
            guard case .held(let held) = try await store.subscribe(account: account, product: Self.monthly, price: Self.price, sandbox: false,
                                                                   processor: "development") else {
                Issue.record("a pending checkout did not hold its group")
                return
            }
            #expect(held.id == pending.id && held.pending)
        }
    }

    /// Twenty subscriptions of one account at once (as twenty checkouts in parallel): one plan.
    @Test(arguments: TestBackend.available)
    func manySubscriptionsAtOnceStartOnePlan(backend: TestBackend) async throws {
        try await MarketplaceSubscriptionStoreTests.with(backend) { purchases, _, _, account, _ in
            let outcomes = try await withThrowingTaskGroup(of: MarketplaceSubscriptionStore.StartOutcome.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        // A store value of its own per task, as each request makes one.
                        try await MarketplaceSubscriptionStore(purchases: purchases).subscribe(
                            account: account, product: Self.monthly, price: Self.price, sandbox: true, processor: "development")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { !Self.isHeld($0) }.count == 1)
            #expect(outcomes.filter { Self.isHeld($0) }.count == 19)
            #expect(try await MarketplaceSubscriptionStore(purchases: purchases).subscriptions(account: account).count == 1)
        }
    }

    /// The index holds whatever path a row takes: a second live plan of the group written straight
    /// into the table is refused; an ended one is not.
    @Test(arguments: TestBackend.available)
    func theIndexRefusesASecondLivePlanOfTheGroup(backend: TestBackend) async throws {
        try await MarketplaceSubscriptionStoreTests.with(backend) { purchases, store, _, account, _ in
            let started = try await store.start(account: account, product: Self.monthly, price: Self.price, sandbox: true, processor: "development")
            let sql = purchases.database.sql
            func copy(state: String) async throws {
                try await sql.raw("""
                    INSERT INTO marketplace_subscriptions (id, account_id, product_id, environment, processor, currency, amount, period, sandbox,
                    started_at, expires_at, renewals, will_renew, state, plan_group, created_at, updated_at)
                    SELECT \(bind: UUID()), account_id, \(bind: Self.yearly.id), environment, processor, currency, amount, period, sandbox,
                    started_at, expires_at, renewals, will_renew, \(bind: state), plan_group, created_at, updated_at
                    FROM marketplace_subscriptions WHERE id = \(bind: started.id)
                    """).run()
            }
            for state in ["active", "billing_retry", "grace_period", "cancelled"] {
                await #expect(throws: (any Error).self) { try await copy(state: state) }
            }
            try await copy(state: "expired")
            try await copy(state: "revoked")
            #expect(try await store.subscriptions(account: account).count == 3)
        }
    }

    /// Plans started before plan groups existed take their product's group from the catalog (an
    /// unknown product: its own id), so the index holds them too.
    @Test(arguments: TestBackend.available)
    func existingPlansTakeTheirGroupFromTheCatalog(backend: TestBackend) async throws {
        try await MarketplaceSubscriptionStoreTests.with(backend) { purchases, store, _, account, _ in
            let started = try await store.start(account: account, product: Self.monthly, price: Self.price, sandbox: true, processor: "development")
            let db = purchases.database.db
            try await AddMarketplaceSubscriptionsOneLivePerGroup().revert(on: db)
            try await UpdateMarketplaceSubscriptionsAddPlanGroup().revert(on: db)
            let unknown = UUID()
            try await purchases.database.sql.raw("""
                INSERT INTO marketplace_subscriptions (id, account_id, product_id, environment, processor, currency, amount, period, sandbox,
                started_at, expires_at, renewals, will_renew, state, created_at, updated_at)
                SELECT \(bind: unknown), account_id, 'gone.plan', environment, processor, currency, amount, period, sandbox,
                started_at, expires_at, renewals, will_renew, state, created_at, updated_at
                FROM marketplace_subscriptions WHERE id = \(bind: started.id)
                """).run()

            try await UpdateMarketplaceSubscriptionsAddPlanGroup().prepare(on: db)
            try await AddMarketplaceSubscriptionsOneLivePerGroup().prepare(on: db)
            let plans = try await store.subscriptions(account: account)
            #expect(plans.first(where: { $0.id == started.id })?.planGroup == "membership")
            #expect(plans.first(where: { $0.id == unknown })?.planGroup == "gone.plan")
            #expect(Self.isHeld(try await store.subscribe(account: account, product: Self.yearly, price: Self.price, sandbox: true,
                                                          processor: "development")))
        }
    }

    /// Plans held twice before the index existed keep running: the older ones are set apart in a
    /// group of their own, so the index can be made.
    @Test(arguments: TestBackend.available)
    func theIndexStepSetsApartPlansAlreadyHeldTwice(backend: TestBackend) async throws {
        try await MarketplaceSubscriptionStoreTests.with(backend) { purchases, store, _, account, clock in
            let sql = purchases.database.sql
            try await sql.raw("DROP INDEX marketplace_subscriptions_one_live").run()
            let older = try await store.start(account: account, product: Self.monthly, price: Self.price, sandbox: true, processor: "development")
            clock.advance(10)
            // A second one written around the store, as two racing checkouts could before.
            let newer = UUID()
            try await sql.raw("""
                INSERT INTO marketplace_subscriptions (id, account_id, product_id, environment, processor, currency, amount, period, sandbox,
                started_at, expires_at, renewals, will_renew, state, plan_group, created_at, updated_at)
                SELECT \(bind: newer), account_id, product_id, environment, processor, currency, amount, period, sandbox,
                \(bind: clock.now), expires_at, renewals, will_renew, state, plan_group, created_at, updated_at
                FROM marketplace_subscriptions WHERE id = \(bind: older.id)
                """).run()

            try await AddMarketplaceSubscriptionsOneLivePerGroup().prepare(on: purchases.database.db)
            let plans = try await store.subscriptions(account: account)
            #expect(plans.first(where: { $0.id == newer })?.planGroup == "membership")
            #expect(plans.first(where: { $0.id == older.id })?.planGroup == "membership#\(older.id.uuidString.lowercased())")
            #expect(plans.allSatisfy { $0.isLive })
            #expect(Self.isHeld(try await store.subscribe(account: account, product: Self.monthly, price: Self.price, sandbox: true,
                                                          processor: "development")))
        }
    }
}
