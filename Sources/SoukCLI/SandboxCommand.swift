import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk sandbox …`: Apple's sandbox tools for the marketplace's own sales: move
/// sandbox subscription time, cancel, fail the next renewal, refund, clear a sandbox account's history.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Sandbox tools: advance the sandbox clock, cancel, fail a renewal, refund, clear.",
        subcommands: [Advance.self, Cancel.self, FailRenewal.self, Refund.self, Clear.self])

    struct Advance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move sandbox subscription time forward (never production, licenses or tokens).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Minutes to move forward.") var minutes: Int

        func validate() throws { guard (1...525_600).contains(minutes) else { throw ValidationError("--minutes must be from 1 to 525600.") } }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let offset = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).advanceSandbox(minutes: minutes)
                print("Sandbox time moved forward \(minutes) min (\(offset / 60) min in all); renewals caught up.")
            }
        }
    }

    /// The sandbox account and the item a command acts on.
    struct Target: ParsableArguments {
        @Option(help: "The sandbox account's email.") var account: String
        @Option(help: "A membership plan (product id of the marketplace catalog).") var product: String?
        @Option(help: "A paid app (its AppleItemID).") var appleItemId: String?

        func sandboxAccount(_ runtime: SoukRuntime) async throws -> UUID {
            let person = try await runtime.catalog.people.requireAccount(email: account)
            guard person.sandbox else { throw ValidationError("\(account) is a production account; souk sandbox acts on sandbox accounts only.") }
            return person.id
        }
    }

    static func act(_ action: MarketplaceSubscriptionStore.SandboxAction, _ target: Target, _ settings: SettingsOptions, done: String) async throws {
        guard let product = target.product else { throw ValidationError("Give --product PLAN.") }
        try await withRuntime(settings) { runtime in
            let account = try await target.sandboxAccount(runtime)
            guard try await MarketplaceSubscriptionStore(purchases: runtime.purchases).sandbox(action, account: account, productId: product) else {
                throw ValidationError("\(target.account) has no live sandbox subscription of \(product).")
            }
            print("\(done): \(product) of \(target.account)")
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn off auto-renew: the subscription runs to the end of its period.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var target: Target
        func run() async throws { try await SandboxCommand.act(.cancel, target, settings, done: "Cancelled (no renewal)") }
    }

    struct FailRenewal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the next renewal fail: billing retry (access lost), or with --grace a grace period (access kept) of one period; then it lapses.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var target: Target
        @Flag(help: "A grace period instead of billing retry.") var grace = false
        func run() async throws { try await SandboxCommand.act(.failRenewal(grace: grace), target, settings, done: "The next renewal will fail") }
    }

    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refund a sandbox purchase: access ends (a plan at once; an app at its next license renewal).")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var target: Target
        func run() async throws {
            if let text = target.appleItemId {
                let appleItemId = try parseAppleID(text, option: "--apple-item-id")
                try await withRuntime(settings) { runtime in
                    let account = try await target.sandboxAccount(runtime)
                    let orders = MarketplaceOrderStore(database: runtime.database)
                    guard let order = try await orders.orders(account: account).first(where: { $0.appleItemId == appleItemId && $0.status == .paid }),
                          let ref = order.processorRef,
                          try await orders.refund(processor: order.processor, paymentRef: ref, amount: order.amountPaid ?? order.price.amount) != nil else {
                        throw ValidationError("\(target.account) has no paid sandbox order of app \(appleItemId).")
                    }
                    print("Refunded app \(appleItemId) of \(target.account)")
                }
                return
            }
            try await SandboxCommand.act(.refund, target, settings, done: "Refunded")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clear a sandbox account's purchase history (of one item, or all); production accounts are refused.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var target: Target
        func run() async throws {
            try await withRuntime(settings) { runtime in
                let account = try await target.sandboxAccount(runtime)
                var cleared = 0
                if target.appleItemId == nil {
                    cleared += try await MarketplaceSubscriptionStore(purchases: runtime.purchases).clearSandbox(account: account, productId: target.product)
                }
                if target.product == nil {
                    let item = try target.appleItemId.map { try parseAppleID($0, option: "--apple-item-id") }
                    cleared += try await MarketplaceOrderStore(database: runtime.database).clear(account: account, appleItemId: item)
                }
                print("Cleared \(cleared) sandbox record(s) of \(target.account)")
            }
        }
    }
}
