import Foundation
import Testing
@testable import SoukIntegrations

/// `StripeFormEncoding` and the parameters a Checkout Session request becomes.
@Suite struct StripeFormEncodingTests {
    @Test func nestedKeysKeepTheirBracketsAndValuesAreEscaped() {
        let body = StripeFormEncoding.encode([("line_items[0][price_data][currency]", "eur"), ("metadata[note]", "a b&c=d+e/f?g#h[i]~*-._")])
        // Expected values from Python's urllib.parse.quote_plus, except `~`, which the WHATWG form serializer escapes.
        #expect(body == "line_items[0][price_data][currency]=eur&metadata[note]=a+b%26c%3Dd%2Be%2Ff%3Fg%23h%5Bi%5D%7E*-._")
    }

    @Test func unicodeIsEscapedAsUTF8Bytes() {
        #expect(StripeFormEncoding.encode([("name", "Café ☕😀")]) == "name=Caf%C3%A9+%E2%98%95%F0%9F%98%80")
        #expect(StripeFormEncoding.encode([("metadata[clé]", "")]) == "metadata[cl%C3%A9]=")
    }

    @Test func reservedCharactersInKeysOtherThanBracketsAreEscaped() {
        #expect(StripeFormEncoding.encode([("metadata[a&b=c]", "1"), ("x y", "2")]) == "metadata[a%26b%3Dc]=1&x+y=2")
        #expect(StripeFormEncoding.encode([]) == "")
    }

    @Test func pathSegmentsCannotLeaveTheirSegment() {
        #expect(StripeFormEncoding.pathSegment("cs_test_a1B2-c~") == "cs_test_a1B2-c~")
        #expect(StripeFormEncoding.pathSegment("../x?y#z") == "%2E%2E%2Fx%3Fy%23z")
    }

    @Test func subscriptionRequestBecomesInlinePriceDataWithMetadataCopiedToTheSubscription() {
        let request = StripeCheckoutRequest(
            mode: .subscription,
            lineItems: [StripeLineItem(name: "Plus, quarterly", currency: "EUR", unitAmount: 1299, quantity: 1,
                                       recurringInterval: "month", recurringIntervalCount: 3)],
            successURL: "https://souk.example/checkout/done?session={CHECKOUT_SESSION_ID}", cancelURL: "https://souk.example/cancel",
            clientReferenceId: "order_42", customerEmail: nil, metadata: ["souk_order": "order_42", "app": "com.example.app"])
        let fields = request.formFields.map { "\($0.0)=\($0.1)" }
        #expect(fields == [
            "mode=subscription",
            "line_items[0][price_data][currency]=eur",
            "line_items[0][price_data][product_data][name]=Plus, quarterly",
            "line_items[0][price_data][unit_amount]=1299",
            "line_items[0][price_data][recurring][interval]=month",
            "line_items[0][price_data][recurring][interval_count]=3",
            "line_items[0][quantity]=1",
            "success_url=https://souk.example/checkout/done?session={CHECKOUT_SESSION_ID}",
            "cancel_url=https://souk.example/cancel",
            "client_reference_id=order_42",
            "metadata[app]=com.example.app",
            "metadata[souk_order]=order_42",
            "subscription_data[metadata][app]=com.example.app",
            "subscription_data[metadata][souk_order]=order_42",
        ])
    }

    @Test func paymentRequestCopiesMetadataToThePaymentIntentAndOmitsRecurring() {
        let request = StripeCheckoutRequest(
            mode: .payment,
            lineItems: [StripeLineItem(name: "Gems", currency: "jpy", unitAmount: 500, quantity: 3),
                        StripeLineItem(name: "Map", currency: "jpy", unitAmount: 120)],
            successURL: "https://s/ok", cancelURL: "https://s/no", customerEmail: "person@example.com", metadata: ["souk_order": "o1"])
        let fields = request.formFields.map { "\($0.0)=\($0.1)" }
        #expect(fields.contains("line_items[1][price_data][unit_amount]=120"))
        #expect(fields.contains("line_items[0][quantity]=3"))
        #expect(fields.contains("customer_email=person@example.com"))
        #expect(fields.contains("payment_intent_data[metadata][souk_order]=o1"))
        #expect(!fields.contains { $0.contains("recurring") || $0.hasPrefix("subscription_data") || $0.hasPrefix("client_reference_id") })
    }
}
