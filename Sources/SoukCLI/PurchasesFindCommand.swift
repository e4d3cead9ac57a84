import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk purchases find --app APP --order-id ID`: the account and purchases behind the order id of
/// a customer's App Store receipt (Apple's Look Up Order ID, with the app's In-App Purchase key).
struct PurchasesFindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find the account and purchases of an App Store order id (from the customer's receipt e-mail).")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app (bundle id).") var app: String
    @Option(name: .customLong("order-id"), help: "The order id on the customer's App Store receipt (e.g. MK5TTTVWJH).") var orderId: String

    /// TRANSACTION, ORIGINAL, PRODUCT, PURCHASED, ENVIRONMENT, ACCOUNT, PAYMENT, STATUS.
    static func render(_ finding: AppleOperations.OrderFinding, emails: [UUID: String]) -> String {
        guard finding.valid else { return "Apple knows no order \(finding.orderId)." }
        let table = Table(["TRANSACTION", "ORIGINAL", "PRODUCT", "PURCHASED", "ENVIRONMENT", "ACCOUNT", "PAYMENT", "STATUS"],
                          finding.transactions.map { row in
                              [row.transactionId, row.originalTransactionId ?? "-", row.productId ?? "-", row.purchaseDate.map(Table.date) ?? "-",
                               row.environment ?? "-",
                               row.purchase.map { emails[$0.accountId] ?? $0.accountId.uuidString.lowercased() } ?? "(never reported to Souk)",
                               row.purchase?.paymentId.uuidString.lowercased() ?? "-", row.purchase?.status.rawValue ?? "-"]
                          }).render()
        let accounts = finding.accounts.map { emails[$0] ?? $0.uuidString.lowercased() }
        var lines = ["Order \(finding.orderId): " + (accounts.isEmpty ? "no Souk account holds its purchases." : "account " + accounts.joined(separator: ", ")),
                     table]
        if finding.unverified > 0 { lines.append("\(finding.unverified) transaction(s) Apple returned did not verify and are left out.") }
        return lines.joined(separator: "\n")
    }

    func run() async throws {
        try await withRuntime(settings) { runtime in
            let operations = runtime.appleOperations(verifiers: try runtime.storeVerifiers())
            let finding: AppleOperations.OrderFinding
            do {
                finding = try await operations.findOrder(app: app, orderId: orderId)
            } catch let refusal as AppleOperations.Refusal {
                throw CommandFailure(refusal.description)
            } catch let fault as StoreFault {
                throw CommandFailure("Apple gave no answer (\(fault.description)); try again later")
            }
            var emails: [UUID: String] = [:]
            for person in try await runtime.catalog.people.accounts() { emails[person.id] = person.email }
            print(Self.render(finding, emails: emails))
        }
    }
}
