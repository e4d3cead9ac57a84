import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk subscriptions …`: store subscriptions as the operator acts on them.
struct SubscriptionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions", abstract: "Extend App Store subscriptions' renewal dates and list the extensions.",
        subcommands: [SubscriptionsExtendCommand.self, SubscriptionsExtensionsCommand.self])
}

/// `souk subscriptions extend --app APP (--account EMAIL | --all-active --product P) --days N --reason 0..3`:
/// Apple's Extend a Subscription Renewal Date for one customer's subscriptions (their entitlements
/// move at once), or for every eligible active subscriber of a product (followed by the server
/// until Apple completes it, then the entitlements move). Audited as the CLI's actor.
struct SubscriptionsExtendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Extend App Store renewal dates (one account's subscriptions, or every active subscriber of a product).")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app (bundle id).") var app: String
    @Option(help: "The account whose subscriptions to extend (email).") var account: String?
    @Flag(name: .customLong("all-active"), help: "Every eligible active subscriber of --product (Apple's mass extension).") var allActive = false
    @Option(help: "With --all-active: the subscription product (Souk product id or App Store product id).") var product: String?
    @Option(help: "Days to add (1 to 90).") var days: Int
    @Option(help: "Apple's reason: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.") var reason: Int
    @Option(name: .customLong("storefront"), help: "With --all-active: only this storefront (ISO 3166-1 alpha-3, repeatable).")
    var storefronts: [String] = []
    @Option(help: "With --all-active: Production (default) or Sandbox.") var environment: String = "Production"

    func validate() throws {
        switch (account, allActive) {
        case (nil, false): throw ValidationError("Give --account EMAIL, or --all-active with --product.")
        case (_?, true): throw ValidationError("Give --account or --all-active, not both.")
        case (nil, true): guard product != nil else { throw ValidationError("--all-active needs --product.") }
        case (_?, false): guard product == nil, storefronts.isEmpty else { throw ValidationError("--product and --storefront go with --all-active.") }
        }
        guard (1...90).contains(days) else { throw ValidationError("--days must be 1 to 90 (Apple's limit per extension).") }
        guard (0...3).contains(reason) else { throw ValidationError("--reason must be 0, 1, 2 or 3.") }
        guard CommerceEnvironment(rawValue: environment) != nil else { throw ValidationError("--environment must be Production or Sandbox.") }
        for code in storefronts where !(code.count == 3 && code.allSatisfy { $0.isASCII && $0.isUppercase }) {
            throw ValidationError("--storefront \(code) is not an ISO 3166-1 alpha-3 code (e.g. USA).")
        }
    }

    func run() async throws {
        try await withRuntime(settings) { runtime in
            let operations = runtime.appleOperations(verifiers: try runtime.storeVerifiers())
            do {
                if let account {
                    let person = try await runtime.catalog.people.requireAccount(email: account)
                    let outcomes = try await operations.extend(app: app, person: person, days: days, reason: reason, actor: .currentCLIUser)
                    for outcome in outcomes {
                        switch outcome.result {
                        case .extended(let date):
                            print("Extended \(outcome.productId) (\(outcome.originalTransactionId)) by \(days) days: renews \(Table.date(date))")
                        case .refused(let why):
                            print("Apple did not extend \(outcome.productId) (\(outcome.originalTransactionId)): \(why)")
                        }
                    }
                    if outcomes.allSatisfy({ if case .refused = $0.result { true } else { false } }) {
                        throw CommandFailure("no subscription of \(person.email) was extended")
                    }
                } else if let product {
                    let row = try await operations.extendAll(app: app, product: product, days: days, reason: reason,
                                                             storefronts: storefronts.isEmpty ? nil : storefronts,
                                                             environment: CommerceEnvironment(rawValue: environment) ?? .production,
                                                             actor: .currentCLIUser)
                    guard row.status == .pending else { throw CommandFailure("Apple refused the extension: \(row.detail ?? "-")") }
                    print("Asked Apple to extend every active subscriber of \(row.productId ?? product) by \(days) days (request \(row.requestIdentifier)); "
                          + "the server moves the entitlements when Apple completes it (souk subscriptions extensions --app \(app)).")
                }
            } catch let refusal as AppleOperations.Refusal {
                throw CommandFailure(refusal.description)
            } catch let fault as StoreFault {
                throw CommandFailure("Apple gave no answer (\(fault.description)); nothing was moved, try again later")
            }
        }
    }
}

/// `souk subscriptions extensions --app APP`: the renewal-date extensions asked for the app.
struct SubscriptionsExtensionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensions", abstract: "An app's renewal-date extensions, newest first, with Apple's outcome.")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app (bundle id).") var app: String
    @Option(help: "How many (newest first).") var limit: Int = 100

    static func render(_ rows: [AppleRenewalExtension]) -> String {
        Table(["REQUESTED", "KIND", "REQUEST", "PRODUCT", "SUBSCRIPTION", "DAYS", "REASON", "STATUS", "SUCCEEDED", "FAILED", "MOVED", "BY", "DETAIL"],
              rows.map { row in
                  [Table.date(row.requestedAt), row.kind.rawValue, row.requestIdentifier, row.productId ?? "-", row.originalTransactionId ?? "-",
                   String(row.extendByDays), String(row.reasonCode), row.status.rawValue, row.succeededCount.map(String.init) ?? "-",
                   row.failedCount.map(String.init) ?? "-", row.movedCount.map(String.init) ?? "-", row.requestedBy, row.detail ?? "-"]
              }).render()
    }

    func run() async throws {
        try await withRuntime(settings) { runtime in
            let rows = try await AppleRenewalExtensionStore(database: runtime.database).requests(app: app, limit: limit)
            print(rows.isEmpty ? "No renewal-date extensions asked for \(app)." : Self.render(rows))
        }
    }
}
