import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

extension AccountsCommand {
    /// `souk accounts sales --email E`: the account's app orders and membership plans (the
    /// marketplace's own sales), with the ids `souk accounts refund` takes.
    struct Sales: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an account's app orders and membership plans, with their ids.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let account = try await runtime.catalog.people.requireAccount(email: email)
                let orders = try await MarketplaceOrderStore(database: runtime.database).orders(account: account.id)
                let plans = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: account.id)
                print(orders.isEmpty ? "no app orders" : Table(["order", "app", "price", "processor", "status", "created"], orders.map { order in
                    [order.id.uuidString.lowercased(), String(order.appleItemId), order.price.formatted, order.processor,
                     order.status.rawValue, Table.date(order.createdAt)]
                }).render())
                print("")
                print(plans.isEmpty ? "no membership plans" : Table(["plan", "product", "price", "processor", "state", "expires"], plans.map { plan in
                    [plan.id.uuidString.lowercased(), plan.productId, plan.price.formatted, plan.processor, plan.state.rawValue,
                     Table.date(plan.expiresAt)]
                }).render())
            }
        }
    }

    /// `souk accounts refund --email E (--order ID | --plan ID)`: the console's refund of an app
    /// order or a membership plan (`RefundMarketplaceSale`), with the same audit entry.
    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refund an account's app order or membership plan through the processor that took the payment.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String
        @Option(help: "The app order's id (souk accounts sales).") var order: String?
        @Option(help: "The membership plan's id (souk accounts sales).") var plan: String?

        func validate() throws {
            guard (order == nil) != (plan == nil) else { throw ValidationError("give one of --order and --plan") }
            for (name, id) in [("--order", order), ("--plan", plan)] {
                if let id, UUID(uuidString: id) == nil { throw ValidationError("\(name) \(id) is not an id (a UUID)") }
            }
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let account = try await runtime.catalog.people.requireAccount(email: email)
                let refunds = RefundMarketplaceSale(runtime: runtime)
                let done: RefundMarketplaceSale.Done
                do {
                    if let order {
                        done = try await refunds.refundOrder(UUID(uuidString: order), of: account, actor: .currentCLIUser)
                    } else {
                        done = try await refunds.refundPlan(plan.flatMap(UUID.init(uuidString:)), of: account, actor: .currentCLIUser)
                    }
                } catch let failure as RefundMarketplaceSale.Failure {
                    throw CommandFailure(failure.message)
                }
                print(done.message)
            }
        }
    }
}
