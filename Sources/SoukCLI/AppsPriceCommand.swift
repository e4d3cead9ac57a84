import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

extension AppsCommand {
    /// `souk apps set-price --apple-item-id N --amount 299 --currency USD [--amount 279 --currency EUR …] | --free
    /// [--requires-entitlement ID | --no-required-entitlement]`: what an app costs.
    /// Amounts are minor units; a later price list replaces the app's; an app may be paid and
    /// included with a membership at once (either opens it). The entitlement must be one of the
    /// marketplace's own catalog (`souk catalog apply` of a file with `"app": "marketplace"`).
    struct SetPrice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-price",
            abstract: "Set what an app costs: prices per currency (minor units), free, and/or a marketplace entitlement that includes it.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(name: .customLong("amount"), help: "A price in minor units (299 = 2.99 USD); repeat with --currency for each currency.")
        var amounts: [Int] = []
        @Option(name: .customLong("currency"), help: "The ISO 4217 currency of the --amount at the same position.") var currencies: [String] = []
        @Flag(help: "Not sold: remove every price.") var free = false
        @Option(help: "An entitlement of the marketplace's catalog (a membership) that includes the app.") var requiresEntitlement: String?
        @Flag(help: "No membership includes the app any more.") var noRequiredEntitlement = false

        var prices: [Price] {
            zip(amounts, currencies).map { Price(currency: $1.uppercased(), amount: $0) }
        }

        func validate() throws {
            _ = try selection.appleItemId()
            guard amounts.count == currencies.count else {
                throw ValidationError("Give each --amount with its --currency (\(amounts.count) amounts, \(currencies.count) currencies).")
            }
            guard !(free && !amounts.isEmpty) else { throw ValidationError("--free takes no --amount.") }
            guard !(requiresEntitlement != nil && noRequiredEntitlement) else {
                throw ValidationError("--requires-entitlement and --no-required-entitlement contradict each other.")
            }
            guard free || !amounts.isEmpty || requiresEntitlement != nil || noRequiredEntitlement else {
                throw ValidationError("Give prices (--amount N --currency C …), --free, --requires-entitlement ID or --no-required-entitlement.")
            }
            if let problem = AppPricing.problem(in: prices) { throw ValidationError(problem + ".") }
        }

        func run() async throws {
            let id = try selection.appleItemId()
            try await withRuntime(settings) { runtime in
                let entitlement: String?? = noRequiredEntitlement ? .some(nil) : requiresEntitlement.map { .some($0) }
                let app: AppRecord
                do {
                    app = try await MarketplaceOperations(runtime: runtime).setPricing(
                        actor: .currentCLIUser, appleItemId: id, prices: free ? [] : (amounts.isEmpty ? nil : prices), requiresEntitlement: entitlement)
                } catch DeveloperOperationError.invalid(_, let problem) {
                    throw ValidationError(problem)
                }
                print("\(app.appleItemId) \(app.bundleId): \(app.pricing.summary)")
            }
        }
    }
}
