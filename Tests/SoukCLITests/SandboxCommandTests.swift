import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk sandbox`, in-process on both databases: the sandbox account's membership is failed,
/// advanced past its grace, refunded and cleared; a production account is refused.
@Suite struct SandboxCommandTests {
    /// A yearly plan: its sandbox period is an hour, so a loaded machine taking minutes between the
    /// steps still finds the subscription in its grace period (a monthly one's is five minutes).
    static let yearlyCatalog = AppsPriceCommandTests.marketplaceCatalog
        .replacingOccurrences(of: "member.monthly", with: "member.yearly").replacingOccurrences(of: "\"P1M\"", with: "\"P1Y\"")

    @Test(arguments: TestBackend.available)
    func sandboxToolsActOnSandboxAccountsOnly(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try Self.yearlyCatalog.write(toFile: folder.path + "/marketplace.json", atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", folder.path + "/marketplace.json"] + settings)
            try await SoukCommand.run(["accounts", "create", "--email", "prod@example.com", "--password", "correct horse"] + settings)
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let plan = try #require(try await runtime.commerceCatalogs.state(app: AppPricing.marketplaceApp)?.catalog.products.first)
                let account = try await runtime.catalog.requireAccount(email: "tester@example.com").requireID()
                _ = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).start(
                    account: account, product: plan, price: plan.prices[0], sandbox: true, processor: "development")
            }
            let target = ["--account", "tester@example.com", "--product", "member.yearly"]
            try await SoukCommand.run(["sandbox", "fail-renewal", "--grace"] + target + settings)
            try await SoukCommand.run(["sandbox", "advance", "--minutes", "61"] + settings)
            let state = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let account = try await runtime.catalog.requireAccount(email: "tester@example.com").requireID()
                return try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: account).first?.state
            }
            #expect(state == .gracePeriod)
            try await SoukCommand.run(["sandbox", "refund"] + target + settings)
            await #expect(throws: (any Error).self) { try await SoukCommand.run(["sandbox", "cancel"] + target + settings) }  // nothing live
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["sandbox", "clear", "--account", "prod@example.com"] + settings)
            }
            try await SoukCommand.run(["sandbox", "clear", "--account", "tester@example.com"] + settings)
            let left = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let account = try await runtime.catalog.requireAccount(email: "tester@example.com").requireID()
                return try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: account).count
            }
            #expect(left == 0)
            #expect(throws: (any Error).self) { try SandboxCommand.Advance.parse(["--minutes", "0"] + settings) }
        }
    }
}
