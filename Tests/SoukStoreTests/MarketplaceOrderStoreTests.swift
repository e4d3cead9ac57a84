import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The marketplace's orders on both databases: one open order per account and app however many
/// checkouts race, paid once, refunded only when paid, ownership only while paid.
@Suite struct MarketplaceOrderStoreTests {
    @Test(arguments: TestBackend.available)
    func racingCheckoutsShareOneOrderPaidOnce(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let account = AccountModel(email: "buyer@example.com", passwordHash: "x")
            try await account.create(on: fixture.database.db)
            let buyer = try account.requireID()
            let store = MarketplaceOrderStore(database: fixture.database)
            let price = Price(currency: "USD", amount: 299)
            let results = try await withThrowingTaskGroup(of: (MarketplaceOrder, Bool).self) { group in
                for _ in 0..<10 {
                    group.addTask { try await store.openOrder(account: buyer, appleItemId: 6_450_000_001, price: price, environment: .production,
                                                              processor: "stripe") }
                }
                return try await group.reduce(into: [(MarketplaceOrder, Bool)]()) { $0.append($1) }
            }
            #expect(Set(results.map(\.0.id)).count == 1 && results.filter(\.1).count == 1)
            let order = results[0].0
            #expect(!(try await store.owns(account: buyer, appleItemId: 6_450_000_001)))
            try await store.attach(order.id, processorRef: "cs_1", url: "https://pay.example/cs_1")
            #expect(try await store.order(processor: "stripe", ref: "cs_1")?.id == order.id)
            // A refund of an unpaid order changes nothing; paying twice pays once.
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 299) == nil)
            #expect(try await store.markPaid(order.id, amount: 299, paymentRef: "pi_1")?.status == .paid)
            #expect(try await store.markPaid(order.id, amount: 299, paymentRef: "pi_1") == nil)
            #expect(try await store.owns(account: buyer, appleItemId: 6_450_000_001))
            // A new checkout of an owned app opens a new order (the caller refuses it before: already-owned).
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 299)?.status == .refunded)
            #expect(!(try await store.owns(account: buyer, appleItemId: 6_450_000_001)))
            #expect(try await store.orders(account: buyer).map(\.status) == [.refunded])
        }
    }
}
