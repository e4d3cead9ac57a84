import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `/admin/clients`: operators register and remove OAuth clients (audited); support only looks.
@Suite struct AdminClientsTests {
    @Test(arguments: TestBackend.available)
    func operatorsRegisterAndRemoveClientsSupportOnlyLooks(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))

            let refused = try await AdminConsoleTests.post(client, "/admin/clients", session: sam, ["name": "TV", "kind": "tv"])
            #expect(refused.status == .forbidden)
            let bad = try await AdminConsoleTests.post(client, "/admin/clients", session: olive,
                                                       ["name": "Web", "kind": "web", "redirect_uris": "http://reader.example.com/cb"])
            #expect(bad.status == .badRequest)
            #expect(String(buffer: bad.body).contains("https"))
            let added = try await AdminConsoleTests.post(client, "/admin/clients", session: olive, [
                "name": "Reader", "kind": "native", "redirect_uris": "com.example.reader:/cb\nhttps://reader.example.com/cb",
                "app": CommerceCatalogSamples.readerApp,
            ])
            #expect(added.status == .ok)
            let listed = try await ClientRegistry(database: runtime.database).list()
            let registered = try #require(listed.first?.client)
            #expect(listed.count == 1)
            #expect(registered.redirectURIs == ["com.example.reader:/cb", "https://reader.example.com/cb"])
            #expect(registered.app == CommerceCatalogSamples.readerApp)
            #expect(String(buffer: added.body).contains(registered.clientId))

            let samPage = String(buffer: try await AdminConsoleTests.get(client, "/admin/clients", session: sam).body)
            #expect(samPage.contains(registered.clientId))
            #expect(!samPage.contains("/admin/clients/remove"))
            #expect(try await AdminConsoleTests.post(client, "/admin/clients/remove", session: sam,
                                                     ["client_id": registered.clientId]).status == .forbidden)
            let removed = try await AdminConsoleTests.post(client, "/admin/clients/remove", session: olive, ["client_id": registered.clientId])
            #expect(removed.status == .seeOther)
            #expect(try await ClientRegistry(database: runtime.database).list().isEmpty)
            let audit = try await AuditLog(database: runtime.database).list(target: "client:\(registered.clientId)")
            #expect(audit.map(\.action) == ["client.remove", "client.add"])
            #expect(audit.allSatisfy { $0.actor == "olive@example.com" })
        }
    }
}
