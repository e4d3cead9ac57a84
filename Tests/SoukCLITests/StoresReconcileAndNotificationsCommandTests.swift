import Foundation
@testable import SoukCLI
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk stores notifications --app`, run in-process on both databases: it lists what was received
/// (unknown types included) with status and outcome, and never prints a payload.
@Suite struct StoresReconcileAndNotificationsCommandTests {
    static let app = "org.example.reader"

    @Test(arguments: TestBackend.available)
    func notificationsAreListedWithoutTheirPayload(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let rows = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let store = StoreNotificationStore(database: runtime.database)
                _ = try await store.receive(ReceivedStoreNotification(
                    app: Self.app, store: "apple_store", notificationId: "uuid-1", type: "DID_RENEW", subtype: "BILLING_RECOVERY",
                    environment: "Production", signedDate: Date(timeIntervalSince1970: 1_800_000_000), payload: "{\"signedPayload\":\"SECRET-JWS\"}"))
                _ = try await store.receive(ReceivedStoreNotification(
                    app: Self.app, store: "apple_store", notificationId: "uuid-2", type: "SOMETHING_NEW", environment: "Sandbox",
                    signedDate: Date(timeIntervalSince1970: 1_800_000_100), payload: "{\"signedPayload\":\"SECRET-JWS\"}"))
                let claimed = try #require(try await store.claimDue())
                try await store.complete(claimed.id, status: .processed, summary: "renewed until 2027-02-15")
                let unknown = try #require(try await store.claimDue())
                try await store.complete(unknown.id, status: .ignored, summary: "unknown notification type SOMETHING_NEW")
                return try await store.notifications(app: Self.app)
            }
            let shown = StoresNotificationsCommand.render(rows)
            #expect(shown.contains("DID_RENEW/BILLING_RECOVERY") && shown.contains("renewed until 2027-02-15"))
            #expect(shown.contains("SOMETHING_NEW") && shown.contains("ignored") && shown.contains("processed"))
            #expect(!shown.contains("SECRET-JWS"))
            var command = try StoresNotificationsCommand.parse(["--app", Self.app, "--limit", "5"] + settings)
            try await command.run()
            #expect(throws: (any Error).self) { try StoresNotificationsCommand.parse(["--app", Self.app, "--limit", "0"] + settings) }
            #expect(throws: (any Error).self) { try StoresNotificationsCommand.parse(["--app", Self.app, "--store", "nokia"] + settings) }
            command = try StoresNotificationsCommand.parse(["--app", "org.example.none", "--store", "google_play"] + settings)
            try await command.run()
        }
    }
}
