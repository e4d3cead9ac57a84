import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The marketplace's orders on both databases: one open order per account and app however many
/// checkouts race, paid once, refunded only when paid, ownership only while paid; a checkout that
/// failed or expired makes way for a new order yet is still paid when the money arrives late; a
/// partial refund keeps the latest total and the app.
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

    static func buyer(_ fixture: StoreFixture) async throws -> UUID {
        let account = AccountModel(email: "buyer@example.com", passwordHash: "x")
        try await account.create(on: fixture.database.db)
        return try account.requireID()
    }

    @Test(arguments: TestBackend.available)
    func aClosedOrderMakesWayForANewOneAndIsStillPaidLate(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let buyer = try await Self.buyer(fixture)
            let store = MarketplaceOrderStore(database: fixture.database)
            let price = Price(currency: "USD", amount: 299)
            let first = try await store.openOrder(account: buyer, appleItemId: 6_450_000_001, price: price, environment: .production, processor: "stripe").order
            try await store.attach(first.id, processorRef: "cs_1", url: "https://pay.example/cs_1")
            #expect(try await store.close(processor: "stripe", ref: "cs_1", as: .cancelled)?.status == .cancelled)
            #expect(try await store.close(processor: "stripe", ref: "cs_1", as: .failed) == nil)  // a replay or a later event: nothing
            // The next checkout opens a new order: new id, new idempotency key.
            let (second, created) = try await store.openOrder(account: buyer, appleItemId: 6_450_000_001, price: price, environment: .production,
                                                              processor: "stripe")
            #expect(created && second.id != first.id && second.idempotencyKey != first.idempotencyKey)
            // Stripe took the money for the cancelled one after all: it is paid, beside the newer open order.
            #expect(try await store.markPaid(first.id, amount: 299, paymentRef: "pi_1")?.status == .paid)
            #expect(try await store.markPaid(first.id, amount: 299, paymentRef: "pi_1") == nil)
            #expect(try await store.owns(account: buyer, appleItemId: 6_450_000_001))
            #expect(try await store.close(processor: "stripe", ref: "cs_1", as: .cancelled) == nil)  // a paid order is never closed
            #expect(Set(try await store.orders(account: buyer).map(\.status)) == [.paid, .open])
            try await store.attach(second.id, processorRef: "cs_2", url: "https://pay.example/cs_2")
            #expect(try await store.close(processor: "stripe", ref: "cs_2", as: .failed)?.status == .failed)
            #expect(try await store.markPaid(second.id, amount: 299, paymentRef: "pi_2")?.status == .paid)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPartialRefundKeepsTheLatestTotalAndTheApp(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let buyer = try await Self.buyer(fixture)
            let store = MarketplaceOrderStore(database: fixture.database)
            let order = try await store.openOrder(account: buyer, appleItemId: 6_450_000_001, price: Price(currency: "USD", amount: 299),
                                                  environment: .production, processor: "stripe").order
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 100, full: false) == nil)  // not paid yet
            try await store.markPaid(order.id, amount: 299, paymentRef: "pi_1")
            let partial = try #require(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 100, full: false))
            #expect(partial.status == .paid && partial.amountRefunded == 100 && partial.refundedAt != nil)
            #expect(try await store.owns(account: buyer, appleItemId: 6_450_000_001))
            // Totals, never sums: a replay or an older total changes nothing, a larger one replaces it.
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 100, full: false) == nil)
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 150, full: false)?.amountRefunded == 150)
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 100, full: false) == nil)
            #expect(try await store.order(order.id)?.amountRefunded == 150)
            let full = try #require(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 299, full: true))
            #expect(full.status == .refunded && full.amountRefunded == 299)
            #expect(!(try await store.owns(account: buyer, appleItemId: 6_450_000_001)))
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 299, full: true) == nil)
            #expect(try await store.refund(processor: "stripe", paymentRef: "pi_1", amount: 200, full: false) == nil)
            #expect(try await store.order(order.id)?.amountRefunded == 299)
        }
    }
}
