import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `StripeClient` against `FakeStripe` on a local socket: Checkout Sessions created and read in
/// Stripe's wire format, idempotency, and how refusals and outages come back.
@Suite struct StripeClientTests {
    static let secretKey = "sk_test_client_5up3rs3cret"

    /// A minute per request: on a loaded machine a call that timed out is repeated, and the repeat
    /// would take an answer staged for the first (a staged 403 consumed, a 404 seen instead).
    static func client(_ base: String, key: String = secretKey) -> StripeClient {
        StripeClient(baseURL: base + "/", secretKey: key,
                     http: StoreHTTPClient(retry: StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 3,
                                                                   requestTimeout: .seconds(60))))
    }

    static let purchase = StripeCheckoutRequest(
        mode: .payment,
        lineItems: [StripeLineItem(name: "Gem pack — 100 💎", currency: "eur", unitAmount: 499, quantity: 2),
                    StripeLineItem(name: "Map & compass", currency: "eur", unitAmount: 150)],
        successURL: "https://souk.example/checkout/done?session={CHECKOUT_SESSION_ID}", cancelURL: "https://souk.example/checkout/cancel",
        clientReferenceId: "order_1", customerEmail: "buyer@example.com", metadata: ["souk_order": "order_1"])

    static let plan = StripeCheckoutRequest(
        mode: .subscription,
        lineItems: [StripeLineItem(name: "Plus", currency: "usd", unitAmount: 999, quantity: 1, recurringInterval: "month")],
        successURL: "https://souk.example/ok", cancelURL: "https://souk.example/cancel", clientReferenceId: "order_2",
        metadata: ["souk_order": "order_2"])

    /// Runs `body` with a fake Stripe and a client pointed at it.
    func withStripe(faults: StoreFaults = StoreFaults(), key: String = secretKey,
                    _ body: @escaping @Sendable (FakeStripe, StripeClient, String) async throws -> Void) async throws {
        let fake = FakeStripe(secretKey: Self.secretKey)
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            try await body(fake, Self.client(base, key: key), base)
        }
    }

    @Test func createsAPaymentSessionWithInlinePricesAndSendsThePersonToItsURL() async throws {
        let faults = StoreFaults()
        try await withStripe(faults: faults) { fake, client, base in
            let session = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "checkout-order_1")
            #expect(session.id.hasPrefix("cs_test_"))
            #expect(session.url == "\(base)/pay/\(session.id)")
            #expect(session.status == "open" && session.paymentStatus == "unpaid" && !session.isPaid)
            #expect(session.amountTotal == 2 * 499 + 150 && session.currency == "eur" && session.mode == "payment")
            #expect(session.clientReferenceId == "order_1" && session.metadata == ["souk_order": "order_1"])
            let request = try #require(faults.requests(matching: "/v1/checkout/sessions").first)
            #expect(request.method == "POST")
            #expect(request.headers["authorization"] == "Bearer \(Self.secretKey)")
            #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
            #expect(request.headers["idempotency-key"] == "checkout-order_1")
            #expect(request.text.contains("line_items[0][price_data][product_data][name]=Gem+pack+%E2%80%94+100+%F0%9F%92%8E"))
            #expect(request.text.contains("customer_email=buyer%40example.com"))
            #expect(request.text.contains("payment_intent_data[metadata][souk_order]=order_1"))
            #expect(fake.sessionCount == 1)
        }
    }

    @Test func aCompletedSubscriptionSessionIsReadBackPaidWithItsSubscription() async throws {
        try await withStripe { fake, client, _ in
            let created = try await client.createCheckoutSession(Self.plan, idempotencyKey: "checkout-order_2")
            #expect(created.amountTotal == 999 && created.subscription == nil)
            try fake.complete(created.id, paid: true)
            let read = try await client.checkoutSession(id: created.id)
            #expect(read.isPaid && read.status == "complete" && read.paymentStatus == "paid")
            #expect(read.url == nil)
            #expect(read.subscription == fake.subscriptionId(forSession: created.id) && read.subscription?.hasPrefix("sub_") == true)
            #expect(read.customer?.hasPrefix("cus_") == true && read.mode == "subscription")
        }
    }

    @Test func theSameIdempotencyKeyAndParametersReturnTheSameSession() async throws {
        try await withStripe { fake, client, _ in
            let first = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "checkout-order_1")
            let again = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "checkout-order_1")
            #expect(again == first)
            #expect(fake.sessionCount == 1)
            let other = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "checkout-order_1b")
            #expect(other.id != first.id && fake.sessionCount == 2)
        }
    }

    @Test func anIdempotencyKeyReusedWithOtherParametersIsRefused() async throws {
        try await withStripe { fake, client, _ in
            _ = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "checkout-order_1")
            var changed = Self.purchase
            changed.lineItems[0].quantity = 3
            let error = await #expect(throws: StripeRequestError.self) {
                try await client.createCheckoutSession(changed, idempotencyKey: "checkout-order_1")
            }
            #expect(error?.status == 400 && error?.type == "idempotency_error")
            #expect(fake.sessionCount == 1)
        }
    }

    @Test func aWrongSecretKeyIsACredentialsFaultThatDoesNotQuoteTheKey() async throws {
        let wrongKey = "sk_test_wrong_key_998877"
        try await withStripe(key: wrongKey) { fake, client, _ in
            let fault = await #expect(throws: StoreFault.self) {
                try await client.createCheckoutSession(Self.purchase, idempotencyKey: "k1")
            }
            #expect(fault?.kind == .credentials)
            #expect(fault.map { !$0.description.contains(wrongKey) && !$0.description.contains("998877") } == true)
            #expect(fake.sessionCount == 0)
        }
    }

    @Test func stripeRefusingAParameterIsARequestErrorNamingIt() async throws {
        try await withStripe { fake, client, _ in
            var recurringInPaymentMode = Self.purchase
            recurringInPaymentMode.lineItems[0].recurringInterval = "month"
            let error = await #expect(throws: StripeRequestError.self) {
                try await client.createCheckoutSession(recurringInPaymentMode, idempotencyKey: "k2")
            }
            #expect(error?.status == 400 && error?.type == "invalid_request_error" && error?.param == "line_items")
            #expect(error?.message.contains("`payment` mode") == true)

            var negative = Self.plan
            negative.lineItems[0].unitAmount = -1
            let invalid = await #expect(throws: StripeRequestError.self) {
                try await client.createCheckoutSession(negative, idempotencyKey: "k3")
            }
            #expect(invalid?.param == "line_items[0][price_data][unit_amount]")
            #expect(fake.sessionCount == 0)
        }
    }

    @Test func anUnknownSessionIsA404RequestError() async throws {
        let faults = StoreFaults()
        try await withStripe(faults: faults) { _, client, _ in
            let error = await #expect(throws: StripeRequestError.self) { try await client.checkoutSession(id: "cs_test_missing") }
            #expect(error?.status == 404 && error?.code == "resource_missing" && error?.param == "id")
            // An id with path characters stays one segment.
            _ = await #expect(throws: StripeRequestError.self) { try await client.checkoutSession(id: "../../v1/customers") }
            let last = try #require(faults.requests.last)
            #expect(last.path.hasPrefix("/v1/checkout/sessions/") && !last.path.dropFirst("/v1/checkout/sessions/".count).contains("/"))
        }
    }

    @Test func a503IsRetriedWithTheSameKeyAndBodyAndRecovers() async throws {
        let faults = StoreFaults()
        faults.failNext(2, status: 503)
        try await withStripe(faults: faults) { fake, client, _ in
            let session = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "checkout-order_1")
            #expect(session.id.hasPrefix("cs_test_"))
            let attempts = faults.requests(matching: "/v1/checkout/sessions")
            #expect(attempts.count == 3)
            #expect(Set(attempts.map(\.text)).count == 1 && Set(attempts.map { $0.headers["idempotency-key"] ?? "" }) == ["checkout-order_1"])
            #expect(fake.sessionCount == 1)
        }
    }

    @Test func stripeDownIsAnUnavailableFault() async throws {
        let faults = StoreFaults()
        faults.down(status: 500)
        try await withStripe(faults: faults) { _, client, _ in
            let fault = await #expect(throws: StoreFault.self) { try await client.checkoutSession(id: "cs_test_x") }
            #expect(fault?.kind == .unavailable)
            #expect(faults.requests.count == 3)
        }
    }

    @Test func a429IsRetriedThenRateLimited() async throws {
        let faults = StoreFaults()
        faults.failNext(1, status: 429)
        try await withStripe(faults: faults) { _, client, _ in
            _ = try await client.createCheckoutSession(Self.plan, idempotencyKey: "k429")
            faults.failNext(3, status: 429)
            let fault = await #expect(throws: StoreFault.self) {
                try await client.createCheckoutSession(Self.plan, idempotencyKey: "k429")
            }
            #expect(fault?.kind == .rateLimited)
        }
    }

    @Test func theSessionURLIsACheckoutPageUntilTheSessionCompletes() async throws {
        try await withStripe { fake, client, _ in
            let session = try await client.createCheckoutSession(Self.purchase, idempotencyKey: "k-page")
            let http = StoreHTTPClient()
            let page = try await http.send(.GET, try #require(session.url), label: "checkout page")
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains(session.id))
            try fake.complete(session.id)
            #expect(try await http.send(.GET, try #require(session.url), label: "checkout page").status == 404)
        }
    }

    @Test func forbiddenConflictAndNonsenseAnswersAreFaultsNotRefusals() async throws {
        let faults = StoreFaults()
        try await withStripe(faults: faults) { _, client, _ in
            faults.failNext(1, status: 403)
            let forbidden = await #expect(throws: StoreFault.self) { try await client.checkoutSession(id: "cs_test_1") }
            #expect(forbidden?.kind == .credentials)
            faults.failNext(1, status: 409)
            let conflict = await #expect(throws: StoreFault.self) {
                try await client.createCheckoutSession(Self.plan, idempotencyKey: "k409")
            }
            #expect(conflict?.kind == .unavailable)
            // A 200 whose body is not a Checkout Session is no answer either.
            faults.failNext(1, status: 200)
            let nonsense = await #expect(throws: StoreFault.self) { try await client.checkoutSession(id: "cs_test_1") }
            #expect(nonsense?.kind == .unavailable && nonsense?.detail.contains("not a Checkout Session") == true)
        }
    }

    @Test func requestErrorsHideEmailsAndKeysThatStripeQuotes() {
        let error = StripeRequestError(status: 400, type: "invalid_request_error", code: "email_invalid",
                                       message: "Invalid email address: a.b+c@example.com (key sk_test_abc123XYZ, secret whsec_q1w2)",
                                       param: "customer_email")
        #expect(error.message == "Invalid email address: <email> (key <key>, secret <key>)")
        #expect(error.description == "Stripe refused the request (400 invalid_request_error, email_invalid, parameter customer_email): \(error.message)")
    }
}
