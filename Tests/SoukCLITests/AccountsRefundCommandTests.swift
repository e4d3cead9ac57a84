import Foundation
import SoukApp
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukStore
import SoukTestSupport
import Testing

/// `souk accounts sales` and `souk accounts refund`, in-process on both databases: the console's
/// refund of an app order and a membership plan (`RefundMarketplaceSale`), with its audit entry.
@Suite struct AccountsRefundCommandTests {
    @Test(arguments: TestBackend.available)
    func theMachinesOperatorRefundsAnOrderAndAPlanOnce(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try SandboxCommandTests.yearlyCatalog.write(toFile: folder.path + "/marketplace.json", atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", folder.path + "/marketplace.json"] + settings)
            try await SoukCommand.run(["accounts", "create", "--email", "other@example.com", "--password", "correct horse"] + settings)
            let (order, plan) = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let product = try #require(try await runtime.commerceCatalogs.state(app: AppPricing.marketplaceApp)?.catalog.products.first)
                let account = try await runtime.catalog.people.requireAccount(email: "tester@example.com").id
                let orders = MarketplaceOrderStore(database: runtime.database)
                let order = try await orders.openOrder(account: account, appleItemId: 6_446_000_004, price: Price(currency: "USD", amount: 299),
                                                       environment: .sandbox, processor: "development").order
                #expect(try await orders.markPaid(order.id, amount: 299, paymentRef: "dev-\(order.id)") != nil)
                let plan = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).start(
                    account: account, product: product, price: product.prices[0], sandbox: true, processor: "development")
                return (order.id.uuidString.lowercased(), plan.id.uuidString.lowercased())
            }
            let tester = ["--email", "tester@example.com"]
            try await SoukCommand.run(["accounts", "sales"] + tester + settings)

            // Exactly one of --order and --plan, each a UUID.
            #expect(throws: (any Error).self) { try AccountsCommand.Refund.parse(tester + settings) }
            #expect(throws: (any Error).self) { try AccountsCommand.Refund.parse(tester + ["--order", order, "--plan", plan] + settings) }
            #expect(throws: (any Error).self) { try AccountsCommand.Refund.parse(tester + ["--order", "42"] + settings) }
            // An id selects only a sale of the account named.
            let elsewhere = await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["accounts", "refund", "--email", "other@example.com", "--order", order] + settings)
            }
            #expect(elsewhere?.description.contains("no order with this id") == true)

            try await SoukCommand.run(["accounts", "refund", "--order", order] + tester + settings)
            let again = await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["accounts", "refund", "--order", order] + tester + settings)
            }
            #expect(again?.description.contains("this one is refunded") == true)
            try await SoukCommand.run(["accounts", "refund", "--plan", plan] + tester + settings)
            let over = await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["accounts", "refund", "--plan", plan] + tester + settings)
            }
            #expect(over?.description.contains("already over") == true)

            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let orderId = try #require(UUID(uuidString: order))
                #expect(try await MarketplaceOrderStore(database: runtime.database).order(orderId)?.status == .refunded)
                let account = try await runtime.catalog.people.requireAccount(email: "tester@example.com").id
                let plans = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: account)
                #expect(plans.first?.revokedAt != nil)
                let audit = AuditLog(database: runtime.database)
                for action in ["order.refund", "plan.refund"] {
                    let entries = try await audit.list(action: action, limit: 10)
                    #expect(entries.count == 1 && entries.allSatisfy { $0.actor == AuditLog.cliActor && $0.target == "account:\(account.uuidString.lowercased())" })
                }
            }
        }
    }
}
