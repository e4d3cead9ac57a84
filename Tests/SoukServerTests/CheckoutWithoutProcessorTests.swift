import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SoukCore
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `paymentProcessor` `none`, the default, on both databases: a paid app or plan is never free by
/// accident — checkout answers `503 payments-not-configured` (without `Retry-After`: it lasts until
/// the operator chooses a processor) and writes nothing, app pages say the app is not for sale yet,
/// and sandbox accounts still buy through the development processor.
@Suite struct CheckoutWithoutProcessorTests {
    @Test(arguments: TestBackend.available)
    func nothingIsSoldAndTheAnswerSaysWhy(backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: CheckoutTests.prepare) { client, runtime in
            #expect(runtime.config.commerce.paymentProcessor == "none")
            try await runtime.catalogIndex.refresh()
            let token = try await CheckoutTests.token(runtime)
            let licensing = try await LicenseClient.make(client)
            for body in [#"{"appleItemId": "1"}"#, #"{"productId": "member.monthly"}"#] {
                let refused = try await CheckoutTests.buy(client, body, token: token)
                #expect(refused.status == .serviceUnavailable)
                #expect(refused.headers[.retryAfter] == nil)
                #expect(try CheckoutTests.json(refused)["type"] as? String == "urn:souk:problem:payments-not-configured")
            }
            // What would not be a sale answers as before.
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "4"}"#, token: token).status == .conflict)
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "2"}"#, token: token).status == .unprocessableContent)
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "77"}"#, token: token).status == .notFound)
            // Nothing written, nothing opened.
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com")
            #expect(try await MarketplaceOrderStore(database: runtime.database).orders(account: try ada.requireID()).isEmpty)
            #expect(try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: try ada.requireID()).isEmpty)
            #expect(try await licensing.request(device: CheckoutTests.device, apps: [(1, 102)], token: token).status.code == 402)

            // A sandbox account buys through the development processor whatever the setting.
            ada.sandbox = true
            try await ada.save(on: runtime.database.db)
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "1"}"#, token: token).status == .created)
            #expect(try await CheckoutTests.buy(client, #"{"productId": "member.monthly"}"#, token: token).status == .created)
            let order = try #require(try await MarketplaceOrderStore(database: runtime.database).orders(account: try ada.requireID()).first)
            #expect(order.processor == "development" && order.environment == .sandbox && order.status == .paid)
        }
    }

    /// The app page says the paid app is not for sale yet, to visitors and signed-in people alike,
    /// instead of a Buy button; a Buy form posted anyway makes no order and leads back to the page.
    @Test(arguments: TestBackend.available)
    func appPagesSayAPaidAppIsNotForSaleYet(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: { runtime, paths in
            try await AppPagesTests.prepare(runtime, paths)
            try await runtime.catalog.setPricing(appleItemId: 6_500_000_001, prices: [Price(currency: "USD", amount: 299)], requiresEntitlement: nil)
        }) { client, runtime in
            try await runtime.catalogIndex.refresh()
            let signedOut = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get).body)
            #expect(signedOut.contains("2.99 USD") && signedOut.contains("is not for sale yet"))
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let page = String(buffer: try await client.execute(uri: "/apps/6500000001", method: .get, headers: [.cookie: session]).body)
            #expect(page.contains("is not for sale yet") && !page.contains("Buy for") && !page.contains(">Install</button>"))
            // The page has no form now; the session's token, from the account page.
            let accountPage = String(buffer: try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).body)
            let csrf = try #require(WebAccountTests.csrf(in: accountPage))
            var headers = OAuthTests.formHeaders
            headers[.cookie] = session
            let posted = try await client.execute(uri: "/apps/6500000001/buy", method: .post, headers: headers, body: OAuthTests.form(["csrf_token": csrf]))
            #expect(posted.status == .seeOther && posted.headers[.location] == "/apps/6500000001")
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            #expect(try await MarketplaceOrderStore(database: runtime.database).orders(account: ada).isEmpty)
        }
    }

    /// `souk serve`'s start: with none, a warning when something has a price; with development,
    /// the banner's line that no money moves.
    @Test(arguments: TestBackend.available)
    func theStartSaysWhatSellsAndWhatCannot(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AppPagesTests.prepare) { _, runtime in
            #expect(try await SalesAtStart.check(runtime) == SalesAtStart())
            try await runtime.catalog.setPricing(appleItemId: 6_500_000_001, prices: [Price(currency: "USD", amount: 299)], requiresEntitlement: nil)
            let warning = try #require(try await SalesAtStart.check(runtime).warning)
            #expect(warning.contains("1 priced app and 0 membership plans cannot be bought"))
            _ = try await runtime.commerceCatalogs.apply(CheckoutTests.marketplace)
            #expect(try await SalesAtStart.check(runtime).warning?.contains("1 priced app and 1 membership plan cannot") == true)
        }
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: AppPagesTests.prepare) { _, runtime in
            let sales = try await SalesAtStart.check(runtime)
            #expect(sales.warning == nil && sales.bannerLine?.contains("no money moves") == true)
        }
    }
}
