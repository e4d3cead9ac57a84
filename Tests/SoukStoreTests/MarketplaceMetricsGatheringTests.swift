import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The marketplace's own sales as metric periods, on both databases: a plan renewed in place is
/// rebuilt into one period per renewal; a paid-app order is a one-time payment with its refund.
@Suite struct MarketplaceMetricsGatheringTests {
    typealias Plans = MarketplaceSubscriptionStoreTests

    @Test(arguments: TestBackend.available)
    func aPlanRenewedInPlaceIsOnePeriodPerRenewal(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            _ = try await CommerceCatalogStore(database: fixture.database).apply(Plans.catalog)
            let member = AccountModel(email: "member@example.com", passwordHash: "x")
            try await member.create(on: fixture.database.db)
            let account = try member.requireID()
            let clock = TestClock()
            let store = MarketplaceSubscriptionStore(purchases: PurchaseStore(database: fixture.database, now: { clock.now }))
            let start = clock.now
            _ = try await store.start(account: account, product: Plans.plan, price: Price(currency: "USD", amount: 499), sandbox: true,
                                      processor: "development")
            clock.advance(301)
            #expect(try await store.renewDue() == 1)
            let periods = try await MetricPeriodGatherer(database: fixture.database).periods(app: AppPricing.marketplaceApp)
                .sorted { $0.start < $1.start }
            #expect(periods.count == 2 && periods.allSatisfy { $0.sandbox && $0.price == 499 && $0.currency == "USD" && $0.kind == .subscription })
            #expect(periods.map(\.start) == [start, start + 300] && periods.map(\.end) == [start + 300, start + 600])
            #expect(Set(periods.map(\.subscription)).count == 1 && periods.last?.billingPeriod == "P1M")
            let day = SubscriptionMetrics(periods: periods, sandbox: true).day(MetricDay(containing: start))
            #expect(day.revenue == ["USD": 998] && day.newSubscribers == 1)
            #expect(try await MetricPeriodGatherer(database: fixture.database).apps() == [AppPricing.marketplaceApp])
        }
    }

    @Test(arguments: TestBackend.available)
    func aPaidAppOrderIsAOneTimePaymentWithItsPartialRefund(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let buyer = try await MarketplaceOrderStoreTests.buyer(fixture)
            _ = try await CatalogStore(database: fixture.database)
                .createApp(AppModel(appleItemId: 6_450_000_001, bundleId: "org.example.paid", name: "Paid"))
            let orders = MarketplaceOrderStore(database: fixture.database)
            let order = try await orders.openOrder(account: buyer, appleItemId: 6_450_000_001, price: Price(currency: "EUR", amount: 299),
                                                   environment: .production, processor: "stripe").order
            _ = try await orders.markPaid(order.id, amount: 299, paymentRef: "pi_1")
            _ = try await orders.refund(processor: "stripe", paymentRef: "pi_1", amount: 100, full: false)
            let gatherer = MetricPeriodGatherer(database: fixture.database)
            let periods = try await gatherer.periods(app: "org.example.paid")
            let period = try #require(periods.first)
            #expect(periods.count == 1 && period.kind == .oneTime && period.price == 299 && period.currency == "EUR" && !period.sandbox)
            #expect(period.refund?.amount == 100 && period.refund?.endsAccess == false)
            let today = SubscriptionMetrics(periods: periods).day(MetricDay(containing: Date()))
            #expect(today.revenue == ["EUR": 299] && today.refunds == ["EUR": 100] && today.activeSubscriptions == 0)
            #expect(try await gatherer.apps() == ["org.example.paid"])
        }
    }
}
