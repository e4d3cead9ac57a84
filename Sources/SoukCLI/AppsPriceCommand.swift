import ArgumentParser
import Foundation
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
                if let requiresEntitlement {
                    let marketplace = try await runtime.commerceCatalogs.state(app: AppPricing.marketplaceApp)
                    guard let marketplace, marketplace.catalog.entitlements.contains(where: { $0.id == requiresEntitlement }) else {
                        throw ValidationError("\(requiresEntitlement) is not an entitlement of the marketplace's catalog; "
                                              + "apply one with \"app\": \"marketplace\" first (docs/selling.md).")
                    }
                }
                let entitlement: String?? = noRequiredEntitlement ? .some(nil) : requiresEntitlement.map { .some($0) }
                let before = try await runtime.catalog.appRecord(appleItemId: id).pricing.summary
                let app = try await runtime.catalog.setPricing(appleItemId: id, prices: free ? [] : (amounts.isEmpty ? nil : prices),
                                                               requiresEntitlement: entitlement)
                if before != app.pricing.summary {
                    try await runtime.auditCLI(.appPrice, target: "app:\(id)", before: ["price": before], after: ["price": app.pricing.summary])
                }
                print("\(app.appleItemId) \(app.bundleId): \(app.pricing.summary)")
            }
        }
    }
}
