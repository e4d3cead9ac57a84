import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk webhooks …`: the developers' URLs that receive their apps' lifecycle events
/// (docs/commerce.md, "Webhooks"). Secrets are written, never shown: `list` says `secret: set`.
/// Adding and redelivering go through the operations the developer API and consoles use.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Add and list webhook endpoints; see and redeliver their deliveries.",
        subcommands: [Add.self, List.self, Deliveries.self, Redeliver.self]
    )

    /// The endpoints as `list` prints them: the secret only as `secret: set`.
    static func render(_ endpoints: [WebhookEndpoint]) -> String {
        Table(["ID", "APP", "URL", "CREATED", "SECRET"], endpoints.map { endpoint in
            [endpoint.id.uuidString.lowercased(), endpoint.app, endpoint.url, Table.date(endpoint.createdAt), "secret: set"]
        }).render()
    }

    /// The deliveries as `deliveries` prints them; LAST is the receiver's status or why there was none,
    /// WHEN the next attempt (pending) or the delivery time.
    static func render(_ deliveries: [WebhookDelivery]) -> String {
        Table(["EVENT", "TYPE", "ENVIRONMENT", "URL", "STATUS", "ATTEMPTS", "LAST", "WHEN"], deliveries.map { delivery in
            [delivery.eventId.uuidString.lowercased(), delivery.eventType, delivery.environment, delivery.url, delivery.status.rawValue,
             String(delivery.attempts), delivery.lastStatus.map(String.init) ?? delivery.lastError ?? "-",
             delivery.status == .pending ? Table.date(delivery.nextAttemptAt) : (delivery.deliveredAt.map(Table.date) ?? "-")]
        }).render()
    }

    /// Runs one operation; its refusal becomes the command's message (without the field's name).
    static func operation<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch DeveloperOperationError.invalid(_, let message), DeveloperOperationError.notFound(let message) {
            throw CommandFailure(message)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an app's lifecycle events (from now on) to a URL, signed with a secret (Souk-Signature).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "The receiver: an http:// or https:// URL (plain http only for localhost in production).") var url: String
        @Option(help: "The signing secret (at least 16 characters); `-` reads it from standard input.") var secret: String

        func run() async throws {
            var key = secret
            if key == "-" { key = (readLine(strippingNewline: true) ?? "").trimmingCharacters(in: .whitespaces) }
            let given = key
            try await withRuntime(settings) { runtime in
                let endpoint = try await WebhooksCommand.operation {
                    try await DeveloperOperations(runtime: runtime).addWebhook(actor: .currentCLIUser, app: app, url: url, secret: given)
                }
                print("Added webhook \(endpoint.id.uuidString.lowercased()) of \(app): \(url) (secret: set)")
                if WebhookStore.isInsecure(url: url) {
                    FileHandle.standardError.write(Data("warning: \(url) is plain http to another machine: events (with email addresses) travel unencrypted; use https.\n".utf8))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One line per endpoint: id, app, URL, created, secret: set.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only this app's endpoints.") var app: String?

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let endpoints = try await WebhookStore(database: runtime.database).endpoints(app: app)
                print(WebhooksCommand.render(endpoints))
            }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "An app's latest deliveries: event, type, environment, URL, status, attempts, last answer, next attempt.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "How many (newest first).") var limit: Int = 100

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let deliveries = try await WebhookStore(database: runtime.database).deliveries(app: app, limit: limit)
                print(WebhooksCommand.render(deliveries))
            }
        }
    }

    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send one event again to each endpoint of its app that was subscribed when it happened (same event id, a new 3-day retry window).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "The event id (as `webhooks deliveries` shows it).") var event: String

        func run() async throws {
            guard let id = UUID(uuidString: event) else { throw CommandFailure("\(event) is not an event id (a UUID)") }
            try await withRuntime(settings) { runtime in
                let queued = try await WebhooksCommand.operation {
                    try await DeveloperOperations(runtime: runtime).redeliverWebhookEvent(actor: .currentCLIUser, app: app, event: id)
                }
                print("Queued event \(id.uuidString.lowercased()) for \(queued) endpoint\(queued == 1 ? "" : "s") of \(app)")
            }
        }
    }
}
