import ArgumentParser
import Foundation
import SoukCore
import SoukStore

/// `souk stores notifications --app APP [--limit N]`: what the stores pushed for an app and what
/// became of it. Unknown types and unmatched purchases are listed too (that is why they are kept);
/// the payload never is (it holds purchase tokens and signed transactions).
struct StoresNotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "An app's received store notifications (Apple V2, Google RTDN, Amazon RTN, Roku Pay), newest first, with their processing status.")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app (bundle id / package name).") var app: String
    @Option(help: "Only this store (apple_store, google_play, amazon, roku).") var store: String?
    @Option(help: "How many (newest first).") var limit: Int = 100

    /// RECEIVED, STORE, ID, TYPE (with subtype), ENVIRONMENT, SIGNED, STATUS, ATTEMPTS, and the
    /// summary (processed) or last error (queued, failed); for Apple's refund requests, Souk's
    /// answer and Apple's reply after it (`refunds`, by notification id).
    static func render(_ notifications: [StoredStoreNotification], refunds: [String: AppleConsumptionRequestRecord] = [:]) -> String {
        Table(["RECEIVED", "STORE", "ID", "TYPE", "ENVIRONMENT", "SIGNED", "STATUS", "ATTEMPTS", "DETAIL"], notifications.map { row in
            let type = row.received.subtype.map { "\(row.received.type)/\($0)" } ?? row.received.type
            var detail = row.lastError ?? row.summary ?? "-"
            if let refund = refunds[row.received.notificationId], row.received.store == CommerceStore.appleStore.rawValue {
                detail += " | answer: " + refund.summary
            }
            return [Table.date(row.receivedAt), row.received.store, row.received.notificationId, type, row.received.environment ?? "-",
                    Table.date(row.received.signedDate), row.status.rawValue, String(row.attempts), detail]
        }).render()
    }

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
        if let store, CommerceStore(rawValue: store) == nil {
            throw ValidationError("Unknown store \(store) (known: \(CommerceStore.allCases.map(\.rawValue).joined(separator: ", "))).")
        }
    }

    func run() async throws {
        try await withRuntime(settings) { runtime in
            let rows = try await StoreNotificationStore(database: runtime.database).notifications(app: app, store: store, limit: limit)
            if rows.isEmpty {
                print("No store notifications received for \(app).")
            } else {
                let requests = try await AppleConsumptionStore(database: runtime.database).requests(app: app, limit: max(limit, 1000))
                print(Self.render(rows, refunds: Dictionary(requests.map { ($0.notificationId, $0) }) { first, _ in first }))
            }
        }
    }
}
