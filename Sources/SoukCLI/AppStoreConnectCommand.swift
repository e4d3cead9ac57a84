import ArgumentParser
import Foundation
import SoukStore

/// `souk asc …`: the App Store Connect notifications Souk received and what became of them.
struct AppStoreConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "asc", abstract: "App Store Connect notifications (webhook events).",
        subcommands: [Events.self, Retry.self])

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the latest events, newest first.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "How many.") var limit: Int = 50

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let events = try await AppStoreConnectEventStore(database: runtime.database).recent(limit: max(1, limit))
                guard !events.isEmpty else { print("No App Store Connect events yet."); return }
                print(Table(["received", "event id", "type", "state", "attempts", "last error"], events.map { event in
                    [Table.date(event.receivedAt), event.eventId, event.type, event.state.rawValue, String(event.attempts),
                     event.lastError.map { String($0.prefix(80)) } ?? ""]
                }).render())
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue a failed event again (after fixing its cause).")
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The event id.") var eventId: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let store = AppStoreConnectEventStore(database: runtime.database)
                guard try await store.record(eventId: eventId) != nil else { throw CommandFailure("no event \(eventId)") }
                try await store.retry(eventId: eventId)
                print("Event \(eventId) queued again; a running server processes it within 30 seconds.")
            }
        }
    }
}
