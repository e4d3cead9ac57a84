import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The console's integrations page (webhook redelivery, key rotation) and a person's timeline
///, on both databases.
@Suite struct AdminIntegrationsTests {
    @Test(arguments: TestBackend.available)
    func supportRedeliversAWebhookAndThePersonsTimelineTellsTheStory(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let app = CommerceCatalogSamples.readerApp
            let webhooks = WebhookStore(database: runtime.database)
            _ = try await webhooks.add(app: app, url: "https://hooks.example/souk", secret: "whsec_timeline_0123456789abcdef")
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let ada = try await AdminConsoleTests.id(runtime, "ada@example.com")
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(ada)/grants", session: sam,
                                                     ["app": app, "entitlement": "premium", "reason": "press"]).status == .seeOther)
            // The server's own delivery worker may have queued it first: either way there is exactly one.
            _ = try await webhooks.enqueue()
            let queued = try await webhooks.deliveries(app: app)
            #expect(queued.count == 1)
            let delivery = try #require(queued.first)

            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/integrations?app=\(app)", session: sam).body)
            #expect(page.contains("https://hooks.example/souk") && page.contains(delivery.eventId.uuidString.lowercased()))
            #expect(!page.contains("whsec_timeline"))  // secrets never shown
            #expect(!page.contains("Rotate the marketplace's key"))  // support may not rotate keys
            let redelivered = try await AdminConsoleTests.post(client, "/admin/integrations/redeliver", session: sam,
                                                               ["app": app, "event": delivery.eventId.uuidString])
            #expect(redelivered.status == .seeOther)
            #expect(try await AdminConsoleTests.post(client, "/admin/integrations/redeliver", session: sam,
                                                     ["app": app, "event": UUID().uuidString]).status == .notFound)
            #expect(try await AdminConsoleTests.post(client, "/admin/integrations/redeliver", session: sam,
                                                     ["app": app, "event": "not-an-id"]).status == .badRequest)
            #expect(try await AuditLog(database: runtime.database).list(action: "webhook.redeliver").count == 1)

            // The person's timeline: the grant's event, the webhook about it, and who made the change.
            let person = String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(ada)", session: sam).body)
            #expect(person.contains("<h2>Timeline</h2>"))
            #expect(person.contains("entitlement.grant by sam@example.com"))
            #expect(person.contains("Webhook ") && person.contains("to https://hooks.example/souk"))
            #expect(person.contains("Account created"))
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorRotatesTheMarketplaceKey(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let before = try #require(try await runtime.installVerificationKeys.activeKeys()[InstallVerificationKeyRecord.marketplaceOwner])
            #expect(try await AdminConsoleTests.post(client, "/admin/integrations/keys/rotate", session: sam).status == .forbidden)
            let rotated = try await AdminConsoleTests.post(client, "/admin/integrations/keys/rotate", session: olive)
            #expect(rotated.status == .ok)
            let after = try #require(try await runtime.installVerificationKeys.activeKeys()[InstallVerificationKeyRecord.marketplaceOwner])
            #expect(after.kid != before.kid)
            let html = String(buffer: rotated.body)
            #expect(html.contains("BEGIN PUBLIC KEY") && !html.contains("PRIVATE KEY"))
            #expect(html.contains(before.kid) && html.contains(after.kid))  // the old key stays published
            let entry = try #require(try await AuditLog(database: runtime.database).list(action: "key.rotate").first)
            #expect(entry.before == #"{"kid":"\#(before.kid)"}"# && entry.after == #"{"kid":"\#(after.kid)"}"#)
        }
    }
}
