import ArgumentParser
import Foundation
import SQLKit
import SoukCore
import SoukServer
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
                let accountId = try await runtime.catalog.requireAccount(email: account).requireID()
                print(PurchasesCommand.eventsTable(try await PurchasesCommand.events(account: accountId, app: app, limit: limit,
                                                                                     database: runtime.database)))
            }
        }
    }

    /// The account's latest `limit` events in the app, oldest first.
    ///
    /// Interim: reads `commerce_events` directly until `CommerceEventStore.list(account:app:limit:)`
    /// (issue 12, lifecycle) is in the tree; then this becomes a call to it.
    static func events(account: UUID, app: String, limit: Int, database: SoukDatabase) async throws -> [CommerceEvent] {
        let rows = try await database.sql.raw("""
            SELECT id, app, account_id, type, source, environment, occurred_at, created_at, product_id, entitlement_id, store,
            transaction_id, original_transaction_id, payment_id, expires_at, dedup_key FROM commerce_events
            WHERE account_id = \(bind: account) AND app = \(bind: app) ORDER BY occurred_at DESC, created_at DESC LIMIT \(bind: limit)
            """).all()
        return try rows.reversed().compactMap { row in
            // A type or source this version does not know (a newer Souk wrote it) is skipped, not a failure.
            guard let type = LifecycleEventType(rawValue: try row.decode(column: "type", as: String.self)),
                  let source = LifecycleSource(rawValue: try row.decode(column: "source", as: String.self)),
                  let environment = CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) else { return nil }
            return CommerceEvent(id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
                                 accountId: try row.decode(column: "account_id", as: UUID.self), type: type, source: source,
                                 environment: environment, occurredAt: try row.decode(column: "occurred_at", as: Date.self),
                                 createdAt: try row.decode(column: "created_at", as: Date.self),
                                 productId: try row.decode(column: "product_id", as: String?.self),
                                 entitlementId: try row.decode(column: "entitlement_id", as: String?.self),
                                 store: try row.decode(column: "store", as: String?.self),
                                 transactionId: try row.decode(column: "transaction_id", as: String?.self),
                                 originalTransactionId: try row.decode(column: "original_transaction_id", as: String?.self),
                                 paymentId: try row.decode(column: "payment_id", as: UUID?.self),
                                 expiresAt: try row.decode(column: "expires_at", as: Date?.self),
                                 dedupKey: try row.decode(column: "dedup_key", as: String.self))
        }
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
