import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Refunds from the console through the processor, against the fake Stripe, on both databases.
@Suite struct AdminRefundsTests {
    /// olive, an operator, and sam, support, beside CheckoutTests' buyer ada.
    static func addStaff(_ runtime: SoukRuntime) async throws {
        let hash = try PasswordHashing.hash(OAuthTests.password)
        for (email, role) in [("olive@example.com", AccountRole.operator), ("sam@example.com", .support)] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            account.role = role
            try await account.save(on: runtime.database.db)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorRefundsAStripeOrderOnceAndAnOutageRefundsNothing(_ backend: TestBackend) async throws {
        let faults = StoreFaults()
        try await CheckoutTests.withStripe(backend, faults: faults) { client, runtime, stripe, stripeURL in
            try await Self.addStaff(runtime)
            let token = try await CheckoutTests.token(runtime)
            let (orderId, session) = try await CheckoutTests.checkout(client, #"{"appleItemId": "1"}"#, token: token, stripeURL: stripeURL)
            let completed = stripe.event(type: "checkout.session.completed", object: try stripe.complete(session, paid: true))
            #expect(try await CheckoutTests.deliver(client, stripe, completed).status == .ok)
            let orders = MarketplaceOrderStore(database: runtime.database)
            let order = try #require(UUID(uuidString: orderId))
            #expect(try await orders.order(order)?.status == .paid)

            let ada = try await AdminConsoleTests.id(runtime, "ada@example.com")
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(ada)", session: olive).body)
            #expect(page.contains("/admin/people/\(ada)/orders/\(orderId)/refund"))
            let uri = "/admin/people/\(ada)/orders/\(orderId)/refund"
            #expect(try await AdminConsoleTests.post(client, uri, session: sam).status == .forbidden)
            // Another person's id cannot reach this order.
            let samsId = try await AdminConsoleTests.id(runtime, "sam@example.com")
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(samsId)/orders/\(orderId)/refund", session: olive).status == .notFound)

            // Stripe down: nothing refunded, a clear 503.
            faults.down(status: 503)
            let down = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(down.status == .serviceUnavailable)
            #expect(String(buffer: down.body).contains("nothing was refunded"))
            faults.recover()
            #expect(stripe.refundRequests.isEmpty)

            // Asked twice (a double click): one refund at Stripe; the order changes when charge.refunded comes.
            let asked = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(asked.status == .ok)
            #expect(String(buffer: asked.body).contains("requested at Stripe"))
            #expect(try await AdminConsoleTests.post(client, uri, session: olive).status == .ok)
            #expect(stripe.refundRequests.count == 1)
            #expect(try await orders.order(order)?.status == .paid)
            #expect(try await CheckoutTests.deliver(client, stripe, try stripe.refund(session: session)).status == .ok)
            #expect(try await orders.order(order)?.status == .refunded)
            let again = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(again.status == .conflict)
            let entries = try await AuditLog(database: runtime.database).list(action: "order.refund", limit: 10)
            #expect(entries.count == 2 && entries.allSatisfy { $0.actor == "olive@example.com" && $0.target == "account:\(ada)" })
        }
    }

    @Test(arguments: TestBackend.available)
    func aDevelopmentOrderIsRefundedAtOnce(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: CheckoutTests.prepare) { client, runtime in
            try await runtime.catalogIndex.refresh()
            try await Self.addStaff(runtime)
            let token = try await CheckoutTests.token(runtime)
            let started = try await CheckoutTests.buy(client, #"{"appleItemId": "1"}"#, token: token)
            let orderId = try #require(try CheckoutTests.json(started)["orderId"] as? String)
            let orders = MarketplaceOrderStore(database: runtime.database)
            // The development processor pays at checkout: no money moves.
            #expect(try await orders.order(try #require(UUID(uuidString: orderId)))?.status == .paid)
            let ada = try await AdminConsoleTests.id(runtime, "ada@example.com")
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let refunded = try await AdminConsoleTests.post(client, "/admin/people/\(ada)/orders/\(orderId)/refund", session: olive)
            #expect(refunded.status == .ok)
            #expect(String(buffer: refunded.body).contains("Refunded 2.99 USD"))
            #expect(try await orders.order(try #require(UUID(uuidString: orderId)))?.status == .refunded)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorRefundsAStripePlanThroughItsLastInvoice(_ backend: TestBackend) async throws {
        try await CheckoutTests.withStripe(backend) { client, runtime, stripe, stripeURL in
            try await Self.addStaff(runtime)
            let token = try await CheckoutTests.token(runtime)
            let plan = try await CheckoutTests.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            #expect(try await CheckoutTests.deliver(client, stripe, stripe.event(type: "checkout.session.completed",
                                                                                 object: try stripe.complete(plan.session, paid: true))).status == .ok)
            let subscription = try #require(stripe.subscriptionId(forSession: plan.session))
            let invoice = try stripe.invoicePaid(subscription: subscription)
            #expect(try await CheckoutTests.deliver(client, stripe, invoice).status == .ok)
            let adaId = try #require(UUID(uuidString: try await AdminConsoleTests.id(runtime, "ada@example.com")))
            let plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
            let stored = try #require(try await plans.subscriptions(account: adaId).first)
            #expect(stored.state == .active)

            let ada = adaId.uuidString.lowercased()
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(ada)", session: olive).body)
            #expect(page.contains("Membership plans") && page.contains("/plans/\(stored.id.uuidString.lowercased())/refund"))
            let uri = "/admin/people/\(ada)/plans/\(stored.id.uuidString.lowercased())/refund"
            let asked = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(asked.status == .ok)
            #expect(String(buffer: asked.body).contains("requested at Stripe"))
            #expect(stripe.refundRequests.count == 1)
            // Stripe confirms: the plan ends.
            let invoiceId = try #require((try JSONValue.parse(invoice))["data"]?["object"]?["id"]?.stringValue)
            #expect(try await CheckoutTests.deliver(client, stripe, try stripe.refund(invoice: invoiceId)).status == .ok)
            #expect(try await plans.subscriptions(account: adaId).first?.state == .revoked)
            // Another person's id does not reach this plan.
            let samsId = try await AdminConsoleTests.id(runtime, "sam@example.com")
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(samsId)/plans/\(stored.id.uuidString.lowercased())/refund",
                                                     session: olive).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDevelopmentPlanIsRefundedAtOnce(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: CheckoutTests.prepare) { client, runtime in
            try await runtime.catalogIndex.refresh()
            try await Self.addStaff(runtime)
            let token = try await CheckoutTests.token(runtime)
            #expect(try await CheckoutTests.buy(client, #"{"productId": "member.monthly"}"#, token: token).status == .created)
            let adaId = try #require(UUID(uuidString: try await AdminConsoleTests.id(runtime, "ada@example.com")))
            let plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
            let plan = try #require(try await plans.subscriptions(account: adaId).first)
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let uri = "/admin/people/\(adaId.uuidString.lowercased())/plans/\(plan.id.uuidString.lowercased())/refund"
            let refunded = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(refunded.status == .ok)
            #expect(try await plans.subscriptions(account: adaId).first?.state == .revoked)
            #expect(try await AdminConsoleTests.post(client, uri, session: olive).status == .conflict)
            #expect(try await AuditLog(database: runtime.database).list(action: "plan.refund").count == 1)
        }
    }
}
