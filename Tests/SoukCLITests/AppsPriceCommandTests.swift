import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk apps set-price`, in-process on both databases: prices replace prices, `--free` clears
/// them, an entitlement must be the marketplace catalog's, and every process's catalog index sees it.
@Suite struct AppsPriceCommandTests {
    static let marketplaceCatalog = """
        {"app": "marketplace", "entitlements": [{"id": "member", "title": "Membership"}],
         "products": [{"id": "member.monthly", "type": "auto-renewable", "group": "membership", "level": 1, "period": "P1M",
                       "title": {"en-US": "Membership"}, "description": {"en-US": "Every paid app"},
                       "prices": [{"currency": "USD", "amount": 499}], "entitlements": ["member"]}]}
        """

    @Test(arguments: TestBackend.available)
    func pricesAndMembershipsAreSetAndSeen(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6450000001", "--bundle-id", "org.example.paid",
                                       "--name", "Paid"] + settings)
            let set = ["apps", "set-price", "--apple-item-id", "6450000001"]
            try await SoukCommand.run(set + ["--amount", "299", "--currency", "USD", "--amount", "279", "--currency", "eur"] + settings)
            await #expect(throws: (any Error).self) { try await SoukCommand.run(set + ["--requires-entitlement", "member"] + settings) }
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try Self.marketplaceCatalog.write(toFile: folder.path + "/marketplace.json", atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", folder.path + "/marketplace.json"] + settings)
            try await SoukCommand.run(set + ["--requires-entitlement", "member"] + settings)
            let pricing = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let app = try await runtime.catalog.app(appleItemId: 6_450_000_001)
                let indexed = try await runtime.catalogIndex.apps([6_450_000_001])[6_450_000_001]
                #expect(indexed?.pricing == app.pricing)
                return app.pricing
            }
            #expect(pricing == AppPricing(prices: [Price(currency: "USD", amount: 299), Price(currency: "EUR", amount: 279)],
                                          requiresEntitlement: "member"))
            try await SoukCommand.run(set + ["--free", "--no-required-entitlement"] + settings)
            let cleared = try await WebhooksCommandTests.withRuntime(config) { try await $0.catalog.app(appleItemId: 6_450_000_001).pricing }
            #expect(cleared.isFree)
            for wrong in [["--amount", "299"], ["--amount", "0", "--currency", "USD"], ["--amount", "1", "--currency", "ABC"],
                          ["--free", "--amount", "1", "--currency", "USD"], [], ["--requires-entitlement", "x", "--no-required-entitlement"]] {
                #expect(throws: (any Error).self) { try AppsCommand.SetPrice.parse(["--apple-item-id", "6450000001"] + wrong + settings) }
            }
        }
    }
}
