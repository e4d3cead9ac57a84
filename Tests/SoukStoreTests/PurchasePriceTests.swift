import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// A store transaction's price is recorded at intake as the store stated it; a purchase whose store
/// said no price keeps NULL (metrics call it "price unknown"), and a later statement fills it.
@Suite struct PurchasePriceTests {
    typealias Base = PurchaseStoreTests

    static func price(_ c: Base.Context, _ payment: UUID) async throws -> (Int64?, String?) {
        let row = try #require(try await c.fixture.database.sql.raw(
            "SELECT price_milliunits, currency FROM purchases WHERE id = \(bind: payment)").first())
        return (try row.decode(column: "price_milliunits", as: Int64?.self), try row.decode(column: "currency", as: String?.self))
    }

    @Test(arguments: TestBackend.available)
    func intakeRecordsThePriceTheStoreStated(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            var priced = c.verified("reader.monthly", transaction: "700", expires: Base.start.addingTimeInterval(30 * 86_400))
            priced.price = 4990
            priced.currency = "EUR"
            let payment = try #require(try await c.record(c.intake("reader.monthly", transaction: "700"), priced).paymentId)
            #expect(try await Self.price(c, payment) == (4990, "EUR"))

            var unpriced = c.verified("reader.monthly", transaction: "701", expires: Base.start.addingTimeInterval(30 * 86_400))
            let other = try #require(try await c.record(c.intake("reader.monthly", transaction: "701"), unpriced).paymentId)
            #expect(try await Self.price(c, other) == (nil, nil))
            // A later statement that states it fills the unknown price; one stated stays.
            unpriced.signedDate = Base.start.addingTimeInterval(10)
            unpriced.price = 3990
            unpriced.currency = "USD"
            _ = try await c.record(c.intake("reader.monthly", transaction: "701"), unpriced)
            #expect(try await Self.price(c, other) == (3990, "USD"))
            priced.signedDate = Base.start.addingTimeInterval(10)
            priced.price = 1
            _ = try await c.record(c.intake("reader.monthly", transaction: "700"), priced)
            #expect(try await Self.price(c, payment) == (4990, "EUR"))
        }
    }
}
