import ArgumentParser
import Foundation
import SoukCore
import SoukServer
import SoukStore

/// `souk entitlements show`: what a person may use in an app now, as the API answers it.
struct EntitlementsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entitlements", abstract: "Show a person's entitlements in an app.", subcommands: [Show.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Products and entitlement ids the account is entitled to now, with their ends; then consumable balances.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The account's email.") var account: String
        @Option(help: "The app (bundle id / package name).") var app: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let model = try await runtime.catalog.requireAccount(email: account)
                let accountId = try model.requireID()
                let catalog = try await runtime.commerceCatalogs.state(app: app)
                let environments = EntitlementEngine.environments(accountIsSandbox: model.sandbox,
                                                                  allowSandbox: catalog?.catalog.allowSandbox ?? false)
                let records = try await runtime.purchases.grantedRecords(account: accountId, app: app)
                let snapshot = EntitlementEngine.evaluate(records, catalog: catalog, environments: environments, at: Date())
                print(EntitlementsCommand.render(snapshot, balances: try await runtime.purchases.balances(account: accountId, app: app)
                    .filter { environments.contains($0.environment) }))
            }
        }
    }

    static func render(_ snapshot: EntitlementSnapshot, balances: [ConsumableBalance]) -> String {
        var rows: [[String]] = []
        for id in snapshot.productIds {
            let access = snapshot.products[id]!
            rows.append(["product", id, access.environment.rawValue, access.expiresAt.map(Table.date) ?? "never",
                         access.paymentId.uuidString.lowercased()])
        }
        for id in snapshot.entitlements.keys.sorted() {
            let access = snapshot.entitlements[id]!
            rows.append(["entitlement", id, access.environment.rawValue, access.expiresAt.map(Table.date) ?? "never",
                         access.paymentId.uuidString.lowercased()])
        }
        for balance in balances {
            rows.append(["balance", balance.productId, balance.environment.rawValue, String(balance.balance), "-"])
        }
        return rows.isEmpty ? "No entitlements." : Table(["KIND", "ID", "ENVIRONMENT", "ENDS / BALANCE", "PAYMENT"], rows).render()
    }
}
