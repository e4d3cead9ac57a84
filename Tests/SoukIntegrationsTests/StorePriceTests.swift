import Foundation
@testable import SoukIntegrations
import SoukCore
import Testing

/// What each store's verified answer says a transaction cost, as `VerifiedPurchase.price`
/// (milli-units) and `currency`; nothing where the store says nothing.
@Suite struct StorePriceTests {
    static func appleTransaction(price: Int64?, currency: String?) -> AppleTransactionPayload {
        var transaction = AppleTransactionPayload()
        transaction.transactionId = "2000000001"
        transaction.productId = "reader.monthly"
        transaction.bundleId = "com.example.reader"
        transaction.purchaseDate = Date(timeIntervalSince1970: 1_800_000_000)
        transaction.signedDate = Date(timeIntervalSince1970: 1_800_000_000)
        transaction.rawEnvironment = "Production"
        transaction.price = price
        transaction.currency = currency
        return transaction
    }

    @Test func applesSignedPriceAndCurrencyAreKept() throws {
        guard case .verified(let purchase) = AppleStoreVerifier.purchase(from: Self.appleTransaction(price: 4990, currency: "EUR")) else {
            Issue.record("not verified"); return
        }
        #expect(purchase.price == 4990 && purchase.currency == "EUR")
        // No storefront in the payload: the country is unknown.
        #expect(purchase.country == nil)
        guard case .verified(let unpriced) = AppleStoreVerifier.purchase(from: Self.appleTransaction(price: nil, currency: nil)) else {
            Issue.record("not verified"); return
        }
        #expect(unpriced.price == nil && unpriced.currency == nil)
    }

    /// Apple's `storefront` is ISO 3166-1 alpha-3; Souk keeps the country as alpha-2, and a code
    /// that is no country as unknown.
    @Test func applesStorefrontIsKeptAsTheCountry() throws {
        for (storefront, country) in [("USA", "US"), ("DEU", "DE"), ("JPN", "JP"), ("ZZZ", nil)] as [(String, String?)] {
            var transaction = Self.appleTransaction(price: 990, currency: "USD")
            transaction.storefront = storefront
            transaction.storefrontId = "143441"
            guard case .verified(let purchase) = AppleStoreVerifier.purchase(from: transaction) else { Issue.record("not verified"); return }
            #expect(purchase.country == country, "\(storefront)")
        }
    }

    @Test func googleMoneyIsExactMilliunits() throws {
        let json = #"{"currencyCode":"EUR","units":"9","nanos":990000000}"#
        let money = try JSONDecoder().decode(GoogleMoney.self, from: Data(json.utf8))
        #expect(money.milliunits == 9990)
        #expect(GoogleMoney(currencyCode: "JPY", units: 1200).milliunits == 1_200_000)
        #expect(GoogleMoney(currencyCode: "USD", units: 1, nanos: 1).milliunits == nil)
        #expect(GoogleMoney(currencyCode: nil, units: 1).milliunits == nil)
    }

    /// Google states the plan's recurring price: kept for a period at the base price, never for a
    /// free trial or an introductory phase (what those cost, Google does not say).
    @Test func googlesRecurringPriceIsKeptOnlyForTheBasePhase() throws {
        let verifier = GooglePlayStoreVerifier(settings: { _ in nil }, endpoints: StoreEndpoints(),
                                               now: { Date(timeIntervalSince1970: 1_800_000_000) })
        let claim = PurchaseClaim(store: .googlePlay, app: "com.example.game", storeProductId: "premium.monthly", transactionId: "GPA.1",
                                  receipt: "tok", productType: .autoRenewable)
        let receipt = GooglePurchaseReceipt(token: "tok", productId: "premium.monthly", packageName: "com.example.game", orderId: nil,
                                            isSubscription: true)
        func verified(phase: String) throws -> VerifiedPurchase? {
            let json = #"""
                {"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "startTime": "2027-01-01T00:00:00Z",
                 "lineItems": [{"productId": "premium.monthly", "expiryTime": "2027-02-01T00:00:00Z",
                                "latestSuccessfulOrderId": "GPA.1234-5678-9012-34567",
                                "autoRenewingPlan": {"autoRenewEnabled": true, "recurringPrice": {"currencyCode": "EUR", "units": "4", "nanos": 990000000}},
                                "offerPhase": {"\#(phase)": {}}}]}
                """#
            let subscription = try JSONDecoder().decode(GoogleSubscriptionPurchaseV2.self, from: Data(json.utf8))
            guard case .verified(let purchase) = try verifier.subscriptionVerdict(subscription, claim: claim, receipt: receipt,
                                                                                  package: "com.example.game") else { return nil }
            return purchase
        }
        let base = try #require(try verified(phase: "basePrice"))
        #expect(base.price == 4990 && base.currency == "EUR")
        let trial = try #require(try verified(phase: "freeTrial"))
        #expect(trial.price == nil && trial.currency == nil && trial.lifecycle?.periodType == .trial)
        let intro = try #require(try verified(phase: "introductoryPrice"))
        #expect(intro.price == nil)
    }

    @Test func rokusAmountIsReadFromItsDecimalText() throws {
        let answer: [String: Any] = ["transactionId": "t-1", "productId": "p", "amount": NSNumber(value: 9.99), "currency": "usd"]
        let transaction = try RokuTransaction(answer)
        #expect(transaction.priceMilliunits == 9990 && transaction.currency == "USD")
        let bare = try RokuTransaction(["transactionId": "t-2", "productId": "p"])
        #expect(bare.priceMilliunits == nil && bare.currency == nil)
    }
}
