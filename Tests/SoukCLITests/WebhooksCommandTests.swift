import Foundation
import SoukApp
@testable import SoukCLI
import SoukServe
import SQLKit
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk webhooks add|list|deliveries|redeliver`, run in-process as `souk` parses them, on both
/// databases; the secret is never part of what they show.
@Suite struct WebhooksCommandTests {
    static let app = "org.example.reader"
    static let secret = "whsec_cli_secret_0123456789"

    static func with(_ backend: TestBackend, _ body: ([String], SoukConfig) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var settings = ["--data-dir", folder.path + "/data"]
        var flags = ["dataDir": folder.path + "/data"]
        if case .postgres(let url) = location {
            settings += ["--database-url", url]
            flags["databaseUrl"] = url
        }
        do {
            if backend == .postgres { try await SoukCommand.run(["migrate"] + settings) }
            try await SoukCommand.run(["accounts", "create", "--email", "tester@example.com", "--password", "correct horse", "--sandbox"]
                                      + settings)
            try await body(settings, try await SoukConfig.load(flags: flags, environment: [:]))
            await drop()
        } catch {
            await drop()
            throw error
        }
    }

    static func withRuntime<T>(_ config: SoukConfig, _ body: (SoukRuntime) async throws -> T) async throws -> T {
        try await SoukRuntime.open(config, logger: testLogger()).closing(body)
    }

    @Test(arguments: TestBackend.available)
    func addListDeliveriesAndRedeliver(backend: TestBackend) async throws {
        try await Self.with(backend) { settings, config in
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["webhooks", "add", "--app", Self.app, "--url", "mailto:dev@example.com", "--secret", Self.secret] + settings)
            }
            try await SoukCommand.run(["webhooks", "add", "--app", Self.app, "--url", "https://hooks.example.com/souk", "--secret", Self.secret]
                                      + settings)
            try await SoukCommand.run(["webhooks", "list"] + settings)
            try await SoukCommand.run(["webhooks", "list", "--app", Self.app] + settings)
            let (listed, event) = try await Self.withRuntime(config) { runtime in
                let store = WebhookStore(database: runtime.database)
                let endpoints = try await store.endpoints(app: Self.app)
                let account = try await runtime.catalog.requireAccount(email: "tester@example.com")
                let id = UUID()
                try await runtime.database.sql.raw("""
                    INSERT INTO commerce_events (id, app, account_id, type, source, environment, occurred_at, created_at, entitlement_id,
                    store, payment_id, dedup_key)
                    VALUES (\(bind: id), \(bind: Self.app), \(bind: try account.requireID()), 'grant', 'operator', 'Sandbox',
                    \(bind: Date()), \(bind: Date().addingTimeInterval(1)), 'premium', 'promotional', \(bind: id), \(bind: "grant|\(id)"))
                    """).run()
                try await store.enqueue()
                return (endpoints, id)
            }
            #expect(listed.map(\.url) == ["https://hooks.example.com/souk"])
            let shown = WebhooksCommand.render(listed)
            #expect(shown.contains("https://hooks.example.com/souk") && shown.contains("secret: set"))
            #expect(!shown.contains(Self.secret))

            try await SoukCommand.run(["webhooks", "deliveries", "--app", Self.app] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["webhooks", "redeliver", "--app", Self.app, "--event", UUID().uuidString] + settings)
            }
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["webhooks", "redeliver", "--app", Self.app, "--event", "not-a-uuid"] + settings)
            }
            try await SoukCommand.run(["webhooks", "redeliver", "--app", Self.app, "--event", event.uuidString] + settings)
            let deliveries = try await Self.withRuntime(config) { runtime in
                try await WebhookStore(database: runtime.database).deliveries(app: Self.app)
            }
            #expect(deliveries.count == 1)
            let delivery = try #require(deliveries.first)
            #expect(delivery.eventId == event && delivery.eventType == "grant" && delivery.environment == "Sandbox" && delivery.status == .pending)
            let table = WebhooksCommand.render(deliveries)
            #expect(table.contains(event.uuidString.lowercased()) && table.contains("Sandbox") && table.contains("pending"))
            #expect(!table.contains(Self.secret))
        }
    }
}
