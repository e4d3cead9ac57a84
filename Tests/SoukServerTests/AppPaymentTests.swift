import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SQLKit
import SoukCore
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Not paid → the documented failure, on both databases: a paid app and one
/// included with the marketplace membership, through license, renewal, restore, updates and the
/// resolution page. Apps 1 (public, versions 101/102) and 4 (public, 401) come from
/// `AppDataTests.prepare`; app 1 costs 2.99 USD, app 2 (account, 201) is included with `member`.
@Suite struct AppPaymentTests {
    static let device = "a1b2c3d4e5f60718"
    static let marketplace = CommerceCatalog(app: AppPricing.marketplaceApp, entitlements: [EntitlementDefinition(id: "member", title: "Member")])

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (any TestClientProtocol, SoukRuntime, String) async throws -> Void) async throws {
        try await ServerFixture.withRuntime(backend, prepare: { runtime, paths in
            try await AppDataTests.prepare(runtime, paths)
            _ = try await runtime.commerceCatalogs.apply(Self.marketplace)
            try await runtime.catalog.setPricing(appleItemId: 1, prices: [Price(currency: "USD", amount: 299)], requiresEntitlement: nil)
            try await runtime.catalog.setPricing(appleItemId: 2, prices: nil, requiresEntitlement: .some("member"))
        }) { client, runtime in
            try await runtime.catalogIndex.refresh()
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
            let token = try await runtime.tokens.exchange(subjectToken: grant, clientId: "iphone").get().accessToken
            try await body(client, runtime, token)
        }
    }

    static func problem(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test(arguments: TestBackend.available)
    func anUnpaidAppIsA402AndAPaidRequestListsIt(backend: TestBackend) async throws {
        try await Self.with(backend) { client, runtime, token in
            let licensing = try await LicenseClient.make(client)
            // A paid app needs an account.
            #expect(try await licensing.request(device: Self.device, apps: [(1, 102)]).status == .unauthorized)
            let alone = try await licensing.request(device: Self.device, apps: [(1, 102)], token: token)
            #expect(alone.status.code == 402)
            let problem = try Self.problem(alone)
            #expect(problem["type"] as? String == "urn:souk:problem:purchase-required")
            #expect(problem["purchaseURL"] as? String == "https://souk.test/apps/1")
            #expect((problem["detail"] as? String)?.contains("2.99 USD") == true)
            let mixed = try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102), (4, 401)], token: token))
            #expect(mixed.unlicensed == ["1"] && mixed.licenses.map { $0["appleItemId"] as? String } == ["4"])

            // Restore and updates: the same rule.
            let onlyPaid = try await AppDataTests.post(client, "restore", #"{"apps": [{"appleItemId": "1"}], "platform": "iOS", "osVersion": "17.4"}"#,
                                                       token: token)
            #expect(onlyPaid.status.code == 402)
            #expect(try Self.problem(onlyPaid)["type"] as? String == "urn:souk:problem:purchase-required")
            let both = try await AppDataTests.post(client, "restore", """
                {"apps": [{"appleItemId": "1"}, {"appleItemId": "4"}], "platform": "iOS", "osVersion": "18.0"}
                """, token: token)
            #expect(both.status == .ok)
            let body = try AppDataTests.json(both)
            #expect((body["restores"] as? [[String: Any]])?.map { $0["appleItemId"] as? String } == ["4"])
            let failure = try #require((body["failures"] as? [[String: Any]])?.first?["failure"] as? [String: Any])
            #expect(failure["code"] as? Int == 402 && failure["purchaseURL"] as? String == "https://souk.test/apps/1")
            let updates = try await AppDataTests.post(client, "updates", """
                {"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.4"}
                """, token: token)
            #expect(updates.status.code == 402)
            // Nothing newer to offer is not a refusal.
            let current = try await AppDataTests.post(client, "updates", """
                {"apps": [{"appleItemId": "1", "appleVersionId": "102"}], "platform": "iOS", "osVersion": "17.4"}
                """, token: token)
            #expect(current.status == .ok)

            // The resolution page, for the account itself, says why and where to pay.
            let account = try await runtime.catalog.people.requireAccount(email: "ada@example.com")
            let service = LicenseService(runtime: runtime, issuer: runtime.licenseIssuer())
            guard case .paymentRequired(_, let verdict, let detail, let url) = try await service.lapse(appleItemId: 1, viewer: .owner(account)) else {
                Issue.record("the resolution page does not explain the payment"); return
            }
            #expect(verdict == .purchaseRequired && detail == "This app costs 2.99 USD; buy it to install it." && url == "https://souk.test/apps/1")
            // Anyone else learns nothing about the account.
            #expect(try await service.lapse(appleItemId: 1, viewer: .stranger(namedAccount: true)) != .appWithdrawn)
        }
    }

    @Test(arguments: TestBackend.available)
    func aMembershipOpensItsAppsAndALapseEndsThemAtRenewal(backend: TestBackend) async throws {
        try await Self.with(backend) { client, runtime, token in
            let licensing = try await LicenseClient.make(client)
            let refused = try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)
            #expect(refused.status.code == 402)
            #expect(try Self.problem(refused)["type"] as? String == "urn:souk:problem:purchase-required")

            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            let accountID = try account.requireID()
            let grants = EntitlementGrantStore(purchases: runtime.purchases)
            _ = try await grants.grant(account: accountID, catalog: Self.marketplace, entitlement: "member", until: Date() + 86_400)
            let issued = try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token))
            let licenseId = try #require(issued.licenses.first?["licenseId"] as? String).flatMap(UInt64.init)
            let id = try #require(licenseId)

            // The membership lapses: a new license is `subscription-expired`, the renewal is ineligible.
            try await runtime.database.sql.raw("UPDATE entitlement_grants SET expires_at = \(bind: Date() - 60), starts_at = \(bind: Date() - 3600)").run()
            runtime.entitlementIndex.invalidate(account: accountID, app: AppPricing.marketplaceApp)
            let lapsed = try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)
            #expect(lapsed.status.code == 402)
            #expect(try Self.problem(lapsed)["type"] as? String == "urn:souk:problem:subscription-expired")
            let renewal = try await licensing.licenses(in: try await licensing.renew(device: Self.device, licenseIds: [id]))
            #expect(renewal.unlicensed == [String(id)] && renewal.licenses.isEmpty)
        }
    }

    @Test func theRuleOpensFreeOwnedAndMemberApps() {
        let paid = AppPricing(prices: [Price(currency: "USD", amount: 299)])
        let member = AppPricing(requiresEntitlement: "member")
        let both = AppPricing(prices: [Price(currency: "USD", amount: 299)], requiresEntitlement: "member")
        #expect(PaymentRule.decide(.free, owned: false, membership: .never) == .open)
        #expect(PaymentRule.decide(paid, owned: true, membership: .never) == .open)
        #expect(PaymentRule.decide(paid, owned: false, membership: .active) == .purchaseRequired)
        #expect(PaymentRule.decide(member, owned: false, membership: .active) == .open)
        #expect(PaymentRule.decide(member, owned: false, membership: .lapsed) == .subscriptionExpired)
        #expect(PaymentRule.decide(member, owned: false, membership: .never) == .purchaseRequired)
        #expect(PaymentRule.decide(both, owned: true, membership: .lapsed) == .open)
        #expect(PaymentRule.decide(both, owned: false, membership: .lapsed) == .subscriptionExpired)
    }
}
