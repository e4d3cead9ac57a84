import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
@testable import SoukServer
import SoukCore
import SoukIntegrations
import SoukStore
import SoukTestSupport
import Testing

/// The person's account page: password change, memberships cancelled and
/// resumed (at Stripe when Stripe bills them), signing out everywhere, deleting the account.
@Suite struct AccountPagesTests {
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await CheckoutTests.prepare(runtime, paths)
        try await runtime.catalog.createAccount(email: "bob@example.com", passwordHash: try PasswordHashing.hash(OAuthTests.password))
    }

    /// Posts a form of the account page with the session's CSRF token; answers the redirect's notice code.
    static func post(_ client: any TestClientProtocol, _ path: String, session: String, _ fields: [String: String] = [:]) async throws -> TestResponse {
        let page = String(buffer: try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).body)
        var headers = OAuthTests.formHeaders
        headers[.cookie] = session
        return try await client.execute(uri: path, method: .post, headers: headers,
                                        body: OAuthTests.form(fields.merging(["csrf_token": try #require(WebAccountTests.csrf(in: page))]) { $1 }))
    }

    static func notice(_ response: TestResponse) -> String? {
        response.headers[.location].flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "notice" }?.value }
    }

    static func valid(_ runtime: SoukRuntime, _ token: String) async throws -> Bool {
        if case .success = try await runtime.tokens.authenticate(accessToken: token) { return true }
        return false
    }

    static func account(_ client: any TestClientProtocol, session: String) async throws -> String {
        String(buffer: try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).body)
    }

    @Test(arguments: TestBackend.available)
    func aPasswordChangeNeedsTheCurrentOneAndSignsOtherBrowsersOut(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let here = try #require(try await WebAccountTests.webSignIn(client))
            let elsewhere = try #require(try await WebAccountTests.webSignIn(client))
            let new = "a brand new password"
            #expect(Self.notice(try await Self.post(client, "/account/password", session: here,
                                                    ["current_password": "wrong", "new_password": new, "confirm_password": new])) == "password-wrong")
            #expect(Self.notice(try await Self.post(client, "/account/password", session: here,
                                                    ["current_password": OAuthTests.password, "new_password": new, "confirm_password": "other"])) == "password-mismatch")
            #expect(Self.notice(try await Self.post(client, "/account/password", session: here,
                                                    ["current_password": OAuthTests.password, "new_password": "short", "confirm_password": "short"])) == "password-rules")
            // Without the CSRF token nothing changes.
            var headers = OAuthTests.formHeaders
            headers[.cookie] = here
            let forged = try await client.execute(uri: "/account/password", method: .post, headers: headers, body: OAuthTests.form(
                ["current_password": OAuthTests.password, "new_password": new, "confirm_password": new]))
            #expect(forged.status == .forbidden)
            let changed = try await Self.post(client, "/account/password", session: here,
                                              ["current_password": OAuthTests.password, "new_password": new, "confirm_password": new])
            #expect(Self.notice(changed) == "password-changed")
            let shown = try await client.execute(uri: try #require(changed.headers[.location]), method: .get, headers: [.cookie: here])
            #expect(String(buffer: shown.body).contains("Password changed."))
            #expect(try await client.execute(uri: "/account", method: .get, headers: [.cookie: elsewhere]).status == .seeOther)
            #expect(try await WebAccountTests.webSignIn(client) == nil)
            #expect(try await WebAccountTests.webSignIn(client, password: new) != nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func signingOutEverywhereEndsDevicesAndBrowsers(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let token = try await CheckoutTests.token(runtime)
            #expect(try await Self.valid(runtime, token))
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let answer = try await Self.post(client, "/account/sign-out-everywhere", session: session)
            #expect(answer.headers[.location] == "/signin?signed-out=everywhere")
            let signIn = String(buffer: try await client.execute(uri: "/signin?signed-out=everywhere", method: .get).body)
            #expect(signIn.contains("Signed out everywhere"))
            #expect(!(try await Self.valid(runtime, token)))
            #expect(try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).status == .seeOther)
        }
    }

    @Test(arguments: TestBackend.available)
    func aMembershipIsCancelledAndResumedByItsHolderOnly(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
            let product = try #require(CheckoutTests.marketplace.products.first)
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let bob = try await runtime.catalog.requireAccount(email: "bob@example.com").requireID()
            let plan = try await plans.start(account: ada, product: product, price: product.prices[0], sandbox: false, processor: "development")
            let bobsPlan = try await plans.start(account: bob, product: product, price: product.prices[0], sandbox: false, processor: "development")
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let page = try await Self.account(client, session: session)
            #expect(page.contains("member.monthly") && page.contains("Cancel renewal") && page.contains("Receipts"))
            let id = plan.id.uuidString.lowercased()
            #expect(Self.notice(try await Self.post(client, "/account/plans/\(id)/cancel", session: session)) == "plan-cancelled")
            #expect(try await plans.subscriptions(account: ada).first?.willRenew == false)
            #expect(try await Self.account(client, session: session).contains("Resume renewal"))
            #expect(Self.notice(try await Self.post(client, "/account/plans/\(id)/resume", session: session)) == "plan-resumed")
            #expect(try await plans.subscriptions(account: ada).first?.willRenew == true)
            // Another account's plan id selects nothing.
            let other = try await Self.post(client, "/account/plans/\(bobsPlan.id.uuidString.lowercased())/cancel", session: session)
            #expect(other.status == .notFound)
            #expect(try await plans.subscriptions(account: bob).first?.willRenew == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func aStripePlanIsCancelledAtStripeFirstAndNothingChangesWhenStripeIsDown(_ backend: TestBackend) async throws {
        let faults = StoreFaults()
        try await CheckoutTests.withStripe(backend, faults: faults) { client, runtime, stripe, stripeURL in
            try await runtime.catalog.createAccount(email: "bob@example.com", passwordHash: try PasswordHashing.hash(OAuthTests.password))
            let token = try await CheckoutTests.token(runtime)
            let plan = try await CheckoutTests.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            #expect(try await CheckoutTests.deliver(client, stripe, stripe.event(type: "checkout.session.completed",
                                                                                 object: try stripe.complete(plan.session, paid: true))).status == .ok)
            let subscription = try #require(stripe.subscriptionId(forSession: plan.session))
            let session = try #require(try await WebAccountTests.webSignIn(client))
            faults.failNext(10, status: 503)
            #expect(Self.notice(try await Self.post(client, "/account/plans/\(plan.order)/cancel", session: session)) == "processor-unavailable")
            #expect(stripe.cancelsAtPeriodEnd(subscription) == false)
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            #expect(try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: ada).first?.willRenew == true)
            faults.recover()
            #expect(Self.notice(try await Self.post(client, "/account/plans/\(plan.order)/cancel", session: session)) == "plan-cancelled")
            #expect(stripe.cancelsAtPeriodEnd(subscription) == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func deletingTheAccountKeepsItsRecordsButNothingPersonal(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: Self.prepare) { client, runtime in
            let token = try await CheckoutTests.token(runtime)
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "1"}"#, token: token).status == .created)
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let page = try await Self.account(client, session: session)
            #expect(page.contains("within 48 hours") && page.contains("Delete my account"))
            #expect(Self.notice(try await Self.post(client, "/account/delete", session: session, ["password": OAuthTests.password])) == "delete-unconfirmed")
            #expect(Self.notice(try await Self.post(client, "/account/delete", session: session, ["password": "wrong", "confirm": "yes"])) == "password-wrong")
            let deleted = try await Self.post(client, "/account/delete", session: session, ["password": OAuthTests.password, "confirm": "yes"])
            #expect(deleted.headers[.location] == "/signin?deleted=1")
            let farewell = String(buffer: try await client.execute(uri: "/signin?deleted=1", method: .get).body)
            #expect(farewell.contains("Your account was deleted"))
            let closed = try #require(try await runtime.catalog.account(id: ada))
            #expect(closed.email == AccountClosure.placeholderEmail(ada) && closed.disabled)
            #expect(try await runtime.catalog.account(email: "ada@example.com") == nil)
            #expect(!(try await Self.valid(runtime, token)))
            #expect(try await WebAccountTests.webSignIn(client) == nil)
            #expect(try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).status == .seeOther)
            // The sale stays on record.
            #expect(try await MarketplaceOrderStore(database: runtime.database).owns(account: ada, appleItemId: 1))
        }
    }
}
