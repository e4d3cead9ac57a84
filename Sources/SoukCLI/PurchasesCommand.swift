import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk purchases …`: the purchases people reported in the apps.
struct PurchasesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchases", abstract: "List, find, revoke, refund and consume in-app purchases.",
        subcommands: [List.self, Revoke.self, Refund.self, Consume.self, Events.self, PurchasesFindCommand.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One line per purchase: store transaction id, payment id, environment, status, product, account, dates.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only this account's purchases (email).") var account: String?
        @Option(help: "Only this app's purchases (bundle id / package name).") var app: String?

        func validate() throws {
            guard account != nil || app != nil else { throw ValidationError("Give --account EMAIL, --app APP, or both.") }
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                var accountId: UUID?
                var emails: [UUID: String] = [:]
                if let account {
                    let person = try await runtime.catalog.people.requireAccount(email: account)
                    accountId = person.id
                }
                for person in try await runtime.catalog.people.accounts() { emails[person.id] = person.email }
                let purchases = try await runtime.purchases.list(account: accountId, app: app)
                print(PurchasesCommand.table(purchases, emails: emails))
            }
        }
    }

    /// The purchases as a table, one line each.
    static func table(_ purchases: [StoredPurchase], emails: [UUID: String]) -> String {
        Table(["TRANSACTION", "PAYMENT", "ENVIRONMENT", "STATUS", "APP", "PRODUCT", "ACCOUNT", "PURCHASED", "EXPIRES", "REVOKED", "STATE",
               "AT STORE"],
              purchases.map { purchase in
                  [purchase.transactionId ?? "(\(purchase.claimedTransactionId))", purchase.paymentId.uuidString.lowercased(),
                   purchase.environment?.rawValue ?? "-", purchase.refusal.map { "refused: \($0.code)" } ?? purchase.status.rawValue,
                   purchase.app, purchase.productId, emails[purchase.accountId] ?? purchase.accountId.uuidString.lowercased(),
                   purchase.purchaseDate.map(Table.date) ?? "-", purchase.expiresDate.map(Table.date) ?? "-",
                   purchase.revokedAt.map(Table.date) ?? "-", purchase.subscriptionState?.rawValue ?? "-", purchase.storeActionSummary]
              }).render()
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a purchase (a refund): access ends at once; a consumable's balance loses its quantity.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The payment id (as `purchases list` and POST transactions show it).") var id: String
        @Option(help: "Why (kept as the revocation reason).") var reason: String = "operator"

        func run() async throws {
            guard let paymentId = UUID(uuidString: id) else { throw CommandFailure("\(id) is not a payment id (a UUID)") }
            try await withRuntime(settings) { runtime in
                let revoked = try await PeopleOperationError.failing {
                    try await PeopleOperations(runtime: runtime).revokePurchase(actor: .currentCLIUser, paymentId: paymentId, reason: reason)
                }
                guard let payment = revoked else {
                    throw CommandFailure("no purchase with payment id \(id)")
                }
                guard payment.status == .granted, let revokedAt = payment.revokedAt else {
                    throw CommandFailure("payment \(id) is \(payment.status.rawValue); only granted purchases are revoked")
                }
                print("Revoked \(payment.productId) (payment \(id)) at \(Table.date(revokedAt)); access ended")
            }
        }
    }

    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refund a Google Play purchase at Google (orders.refund, or purchases.subscriptionsv2.revoke for a subscription); access ends when Google confirms it.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The payment id (as `purchases list` and POST transactions show it).") var id: String
        @Flag(help: "A subscription: refund the unused time only (proratedRefund) instead of in full (fullRefund).") var prorated = false

        func run() async throws {
            guard let paymentId = UUID(uuidString: id) else { throw CommandFailure("\(id) is not a payment id (a UUID)") }
            try await withRuntime(settings) { runtime in
                let refunds = runtime.storeRefunds(verifiers: try runtime.storeVerifiers())
                switch try await refunds.refund(paymentId, prorated: prorated, actor: .currentCLIUser) {
                case .success(.revoked(let payment, let method)):
                    print("Refunded \(payment.productId) (payment \(id)) at Google Play (\(method)); Google confirms it: access ended")
                case .success(.requested(let payment, let method)):
                    print("Refund of \(payment.productId) (payment \(id)) requested at Google Play (\(method)); access ends when Google confirms it")
                case .failure(let failure):
                    throw CommandFailure(failure.message)
                }
            }
        }
    }

    struct Consume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Use a consumable; fails (exit 1) rather than take the balance below zero.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The account's email.") var account: String
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "The consumable's product id.") var product: String
        @Option(help: "How many to use (default 1).") var quantity: Int = 1
        @Option(help: "Production or Sandbox (default: the account's: Sandbox for a sandbox account).") var environment: String?

        func run() async throws {
            guard quantity >= 1 else { throw ValidationError("--quantity must be at least 1") }
            try await withRuntime(settings) { runtime in
                let person = try await runtime.catalog.people.requireAccount(email: account)
                let chosen: CommerceEnvironment
                if let environment {
                    guard let value = CommerceEnvironment(rawValue: environment) else {
                        throw ValidationError("--environment must be Production or Sandbox")
                    }
                    chosen = value
                } else {
                    chosen = person.sandbox ? .sandbox : .production
                }
                switch try await runtime.purchases.consume(account: person.id, app: app, productId: product,
                                                           environment: chosen, quantity: quantity, source: .operator) {
                case .success(let balance):
                    print("Used \(quantity) of \(product) for \(person.email) (\(chosen.rawValue)); balance now \(balance)")
                case .failure(.insufficient(let balance)):
                    throw CommandFailure("the \(chosen.rawValue) balance of \(product) for \(person.email) is \(balance), less than \(quantity); nothing used")
                }
            }
        }
    }
}
