import Foundation
import SoukCore
import Testing

/// What an app costs: price lists checked, stored and read back, the buyer's
/// currency or the first, and how people read it.
@Suite struct AppPricingTests {
    @Test func aPriceListIsCheckedStoredAndChosenFrom() {
        let prices = [Price(currency: "USD", amount: 299), Price(currency: "EUR", amount: 279), Price(currency: "JPY", amount: 500)]
        #expect(AppPricing.problem(in: prices) == nil)
        #expect(AppPricing.decode(AppPricing.encode(prices)) == prices)
        let pricing = AppPricing(prices: prices)
        #expect(pricing.price(in: "eur") == Price(currency: "EUR", amount: 279))
        #expect(pricing.price(in: "GBP") == Price(currency: "USD", amount: 299))
        #expect(pricing.price(in: nil) == Price(currency: "USD", amount: 299))
        #expect(pricing.summary == "2.99 USD, 2.79 EUR, 500 JPY")
        #expect(!pricing.isFree && AppPricing.free.isFree && AppPricing.free.summary == "free")
        #expect(AppPricing(requiresEntitlement: "member").summary == "with member")
        #expect(AppPricing(prices: [Price(currency: "USD", amount: 5)], requiresEntitlement: "member").summary == "0.05 USD or with member")
        #expect(AppPricing.decode(nil).isEmpty && AppPricing.decode("not json").isEmpty)
    }

    @Test(arguments: [
        ([Price(currency: "XYZ", amount: 1)], "XYZ is not an ISO 4217 currency code (USD, EUR, JPY …)"),
        ([Price(currency: "USD", amount: 0)], "0 USD: an amount is in minor units and above zero (use --free for a free app)"),
        ([Price(currency: "USD", amount: 1), Price(currency: "USD", amount: 2)], "USD is given twice"),
    ])
    func aWrongPriceListIsNamed(prices: [Price], problem: String) {
        #expect(AppPricing.problem(in: prices) == problem)
    }
}
