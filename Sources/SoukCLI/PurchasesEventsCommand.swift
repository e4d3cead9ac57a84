import ArgumentParser
import Foundation
import SoukCore
import SoukStore

extension PurchasesCommand {
    /// `souk purchases events`: a person's lifecycle trail in one app, readable by support — what
    /// happened, when, and where Souk learned it (`intake`, `notification`, `reconciliation`, `operator`).
    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One line per lifecycle event of an account in an app, oldest first, with its source.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The account's email.") var account: String
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "At most this many events (the latest ones).") var limit: Int = 1000

        func validate() throws {
            guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 100000; got \(limit)") }
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let accountId = try await runtime.catalog.people.requireAccount(email: account).id
                print(PurchasesCommand.eventsTable(try await PurchasesCommand.events(account: accountId, app: app, limit: limit,
                                                                                     database: runtime.database)))
            }
        }
    }

    /// The account's latest `limit` events in the app, oldest first.
    static func events(account: UUID, app: String, limit: Int, database: SoukDatabase) async throws -> [CommerceEvent] {
        try await CommerceEventStore(database: database).list(account: account, app: app, limit: limit)
    }

    /// The events as a table, oldest first, one line each.
    static func eventsTable(_ events: [CommerceEvent]) -> String {
        guard !events.isEmpty else { return "No events." }
        let ordered = events.sorted { a, b in a.occurredAt != b.occurredAt ? a.occurredAt < b.occurredAt : a.createdAt < b.createdAt }
        return Table(["OCCURRED", "TYPE", "SOURCE", "ENVIRONMENT", "STORE", "PRODUCT", "ENTITLEMENT", "PAYMENT", "EXPIRES", "TRANSACTION"],
                     ordered.map { event in
                         [Table.date(event.occurredAt), event.type.rawValue, event.source.rawValue, event.environment.rawValue,
                          event.store ?? "-", event.productId ?? "-", event.entitlementId ?? "-",
                          event.paymentId?.uuidString.lowercased() ?? "-", event.expiresAt.map(Table.date) ?? "-", event.transactionId ?? "-"]
                     }).render()
    }
}
