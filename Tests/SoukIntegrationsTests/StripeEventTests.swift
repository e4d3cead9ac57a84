import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// Each Stripe event Souk acts on, as `FakeStripe` sends it (API version 2025-03-31 shapes) and as
/// older API versions shaped it, read through `StripeEvent`'s accessors.
@Suite struct StripeEventTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let secretKey = "sk_test_events"

    static let purchase = StripeCheckoutRequest(
        mode: .payment, lineItems: [StripeLineItem(name: "Gems", currency: "eur", unitAmount: 750, quantity: 2)],
        successURL: "https://s/ok", cancelURL: "https://s/no", clientReferenceId: "order_1", metadata: ["souk_order": "order_1"])
    static let plan = StripeCheckoutRequest(
        mode: .subscription, lineItems: [StripeLineItem(name: "Plus", currency: "usd", unitAmount: 999, recurringInterval: "month")],
        successURL: "https://s/ok", cancelURL: "https://s/no", clientReferenceId: "order_2", metadata: ["souk_order": "order_2"])

    /// A fake Stripe with one session created through the client; `body` gets the fake and the session.
    func withSession(_ request: StripeCheckoutRequest,
                     _ body: @escaping @Sendable (FakeStripe, StripeCheckoutSession) async throws -> Void) async throws {
        let fake = FakeStripe(secretKey: Self.secretKey, now: { Self.now })
        try await FakeStoreServer.run(routes: fake.routes) { base in
            let client = StripeClient(baseURL: base, secretKey: Self.secretKey, http: StoreHTTPClient())
            try await body(fake, try await client.createCheckoutSession(request, idempotencyKey: UUID().uuidString))
        }
    }

    /// Verifies `payload` as a webhook receiver would.
    static func received(_ fake: FakeStripe, _ payload: [UInt8]) throws -> StripeEvent {
        try StripeWebhook.verify(payload: payload, header: fake.signatureHeader(payload), secret: fake.webhookSecret, now: now)
    }

    @Test func checkoutSessionCompletedGrantsOnlyWhenPaid() async throws {
        try await withSession(Self.purchase) { fake, session in
            let event = try Self.received(fake, fake.event(type: "checkout.session.completed", object: try fake.complete(session.id)))
            #expect(event.kind == .checkoutSessionCompleted && event.created == Self.now)
            let completed = try event.checkoutSession()
            #expect(completed.id == session.id && completed.isPaid && completed.amountTotal == 1500 && completed.currency == "eur")
            #expect(completed.clientReferenceId == "order_1" && completed.metadata["souk_order"] == "order_1")
            #expect(completed.paymentIntent?.hasPrefix("pi_") == true && completed.subscription == nil)
        }
        try await withSession(Self.plan) { fake, session in
            let event = try Self.received(fake, fake.event(type: "checkout.session.completed", object: try fake.complete(session.id, paid: false)))
            let completed = try event.checkoutSession()
            #expect(completed.status == "complete" && completed.paymentStatus == "unpaid" && !completed.isPaid)
            #expect(completed.subscription == nil)
        }
    }

    @Test func invoicePaidNamesTheSubscriptionAndThePeriodItPaysFor() async throws {
        try await withSession(Self.plan) { fake, session in
            try fake.complete(session.id)
            let subscription = try #require(fake.subscriptionId(forSession: session.id))
            let first = try Self.received(fake, fake.invoicePaid(subscription: subscription)).invoice()
            #expect(first.id.hasPrefix("in_") && first.subscription == subscription && first.customer?.hasPrefix("cus_") == true)
            #expect(first.amountPaid == 999 && first.amountDue == 999 && first.currency == "usd" && first.status == "paid")
            #expect(first.billingReason == "subscription_create")
            #expect(first.periodEnd == Date(timeIntervalSince1970: 1_769_904_000))  // 2026-02-01
            #expect(first.subscriptionMetadata == ["souk_order": "order_2"])
            let renewal = try Self.received(fake, fake.invoicePaid(subscription: subscription))
            #expect(renewal.kind == .invoicePaid)
            let second = try renewal.invoice()
            #expect(second.billingReason == "subscription_cycle" && second.id != first.id)
            #expect(second.periodEnd == Date(timeIntervalSince1970: 1_772_323_200))  // 2026-03-01, not the invoice's own period_end
        }
    }

    @Test func invoicePaymentFailedIsUnpaidAndLeavesTheSubscriptionPastDue() async throws {
        try await withSession(Self.plan) { fake, session in
            try fake.complete(session.id)
            let subscription = try #require(fake.subscriptionId(forSession: session.id))
            let event = try Self.received(fake, fake.invoicePaymentFailed(subscription: subscription))
            #expect(event.kind == .invoicePaymentFailed)
            let invoice = try event.invoice()
            #expect(invoice.amountPaid == 0 && invoice.amountDue == 999 && invoice.status == "open" && invoice.subscription == subscription)
            let updated = try Self.received(fake, fake.subscriptionUpdated(subscription)).subscription()
            #expect(updated.status == "past_due")
        }
    }

    @Test func subscriptionUpdatedAndDeletedCarryStatusPeriodAndMetadata() async throws {
        try await withSession(Self.plan) { fake, session in
            try fake.complete(session.id)
            let id = try #require(fake.subscriptionId(forSession: session.id))
            let updated = try Self.received(fake, fake.subscriptionUpdated(id, cancelAtPeriodEnd: true))
            #expect(updated.kind == .customerSubscriptionUpdated)
            let subscription = try updated.subscription()
            #expect(subscription.id == id && subscription.status == "active" && subscription.cancelAtPeriodEnd)
            #expect(subscription.currentPeriodEnd == Date(timeIntervalSince1970: 1_769_904_000))
            #expect(subscription.metadata == ["souk_order": "order_2"] && subscription.customer?.hasPrefix("cus_") == true)
            let deleted = try Self.received(fake, fake.subscriptionDeleted(id))
            #expect(deleted.kind == .customerSubscriptionDeleted)
            #expect(try deleted.subscription().status == "canceled")
        }
    }

    @Test func chargeRefundedCountsPartialAndFullRefunds() async throws {
        try await withSession(Self.purchase) { fake, session in
            let completed = try StripeEvent.parse(fake.event(type: "checkout.session.completed", object: try fake.complete(session.id)))
                .checkoutSession()
            let partial = try Self.received(fake, fake.refund(session: session.id, amount: 500))
            #expect(partial.kind == .chargeRefunded)
            let charge = try partial.charge()
            #expect(charge.id.hasPrefix("ch_") && charge.amount == 1500 && charge.amountRefunded == 500 && !charge.refunded)
            #expect(charge.paymentIntent == completed.paymentIntent && charge.currency == "eur")
            let full = try Self.received(fake, fake.refund(session: session.id)).charge()
            #expect(full.amountRefunded == 1500 && full.refunded && full.id == charge.id)
        }
    }

    @Test func olderAPIVersionShapesAndExpandedReferencesAreRead() throws {
        let invoice = try StripeEvent(id: "evt_1", type: "invoice.paid", created: Self.now, livemode: true, object: Array(#"""
            {"id":"in_1","object":"invoice","subscription":"sub_9","customer":{"id":"cus_9","object":"customer"},
             "amount_paid":1200,"amount_due":1200,"currency":"gbp","status":"paid","billing_reason":"subscription_cycle",
             "subscription_details":{"metadata":{"souk_order":"o9"}},
             "lines":{"object":"list","data":[{"period":{"start":1767225600,"end":1769904000}}]}}
            """#.utf8)).invoice()
        #expect(invoice == StripeInvoice(id: "in_1", subscription: "sub_9", customer: "cus_9", amountPaid: 1200, amountDue: 1200,
                                         currency: "gbp", status: "paid", periodEnd: Date(timeIntervalSince1970: 1_769_904_000),
                                         billingReason: "subscription_cycle", subscriptionMetadata: ["souk_order": "o9"]))
        let subscription = try StripeEvent(id: "evt_2", type: "customer.subscription.updated", created: Self.now, livemode: true,
                                           object: Array(#"{"id":"sub_9","object":"subscription","customer":"cus_9","status":"active","current_period_end":1769904000,"cancel_at_period_end":false,"metadata":{}}"#.utf8))
            .subscription()
        #expect(subscription == StripeSubscription(id: "sub_9", customer: "cus_9", status: "active",
                                                   currentPeriodEnd: Date(timeIntervalSince1970: 1_769_904_000)))
        let charge = try StripeEvent(id: "evt_3", type: "charge.refunded", created: Self.now, livemode: true,
                                     object: Array(#"{"id":"ch_1","object":"charge","amount":1200,"amount_refunded":1200,"refunded":true,"invoice":"in_1","payment_intent":{"id":"pi_1"},"metadata":{"a":"b"}}"#.utf8))
            .charge()
        #expect(charge == StripeCharge(id: "ch_1", amount: 1200, amountRefunded: 1200, refunded: true, paymentIntent: "pi_1",
                                       invoice: "in_1", metadata: ["a": "b"]))
    }

    @Test func readingTheWrongObjectOrAMistypedFieldNamesThePath() throws {
        let session = StripeEvent(id: "evt_1", type: "checkout.session.completed", created: Self.now, livemode: false,
                                  object: Array(#"{"id":"cs_1","object":"checkout.session","amount_total":"12"}"#.utf8))
        #expect(throws: JSONPathError(path: "data.object", message: "expected a Stripe invoice object, found checkout.session")) {
            try session.invoice()
        }
        #expect(throws: JSONPathError(path: "data.object.amount_total", message: "expected an integer")) { try session.checkoutSession() }
        let noId = StripeEvent(id: "evt_2", type: "charge.refunded", created: Self.now, livemode: false,
                               object: Array(#"{"object":"charge","amount":1}"#.utf8))
        #expect(throws: JSONPathError(path: "data.object.id", message: "is missing")) { try noId.charge() }
    }

    @Test func unknownEventTypesParseWithoutAKind() throws {
        let event = try StripeEvent.parse(Array(#"{"id":"evt_7","object":"event","type":"payment_intent.created","created":1767225600,"livemode":true,"data":{"object":{"id":"pi_1","object":"payment_intent"}}}"#.utf8))
        #expect(event.kind == nil && event.type == "payment_intent.created" && event.livemode)
        #expect(Set(StripeEvent.Kind.allCases.map(\.rawValue)) == ["checkout.session.completed", "invoice.paid", "invoice.payment_failed",
                                                                 "customer.subscription.updated", "customer.subscription.deleted", "charge.refunded"])
    }
}
