import Foundation
import HTTPTypes
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The store credentials pages of both consoles (`/developer/catalog/<app>/credentials`,
/// `/admin/catalog/<app>/credentials`): an upload is sealed and shown by its hint only, another
/// organisation's catalog is 404 on every route, a bad upload is a 400 page naming the problem,
/// support staff read but do not change; on both databases.
@Suite struct StoreCredentialConsoleTests {
    typealias Console = DeveloperConsoleTests
    static let secret = "ROKU-CONSOLE-PARTNER-KEY-4242"

    static func upload(_ client: any TestClientProtocol, _ uri: String, session: String, csrf: String, kind: String,
                       content: String, filename: String = "key.txt") async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: [
            .cookie: session, .contentType: "multipart/form-data; boundary=\(AdminAppsConsoleTests.boundary)",
        ], body: AdminAppsConsoleTests.multipart([("csrf_token", csrf), ("kind", kind)], files: [("file", filename, Data(content.utf8))]))
    }

    @Test(arguments: TestBackend.available)
    func aMemberSealsACredentialSeesOnlyItsHintAndReachesNoOtherCatalog(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Console.prepare) { client, runtime in
            let dev = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let token = try await Console.csrf(client, session: dev)
            let page = "/developer/catalog/\(Console.acmeCatalog)/credentials"
            #expect(String(buffer: try await Console.get(client, "/developer/catalog/\(Console.acmeCatalog)", session: dev).body).contains(page))

            let set = try await Self.upload(client, page, session: dev, csrf: token, kind: "roku/partner-api-key", content: Self.secret + "\n")
            #expect(set.status == .seeOther && set.headers[.location] == page + "?done=set")
            let shown = String(buffer: try await Console.get(client, page + "?done=set", session: dev).body)
            #expect(shown.contains("ends with 4242") && shown.contains("mia@example.com") && !shown.contains(Self.secret))
            let stored = try await StoreCredentialStore(database: runtime.database).credentials(app: Console.acmeCatalog)
            #expect(stored.map(\.kind) == [.rokuPartnerAPIKey] && !stored[0].sealed.contains(Self.secret))

            // A bad upload: a 400 page naming the problem; nothing replaced.
            let bad = try await Self.upload(client, page, session: dev, csrf: token, kind: "apple/server-api-key", content: "not a key", filename: "AuthKey_X.p8")
            #expect(bad.status == .badRequest && String(buffer: bad.body).contains("EC P-256"))
            #expect(try await StoreCredentialStore(database: runtime.database).credentials(app: Console.acmeCatalog).count == 1)
            #expect(try await Self.upload(client, page, session: dev, csrf: "forged", kind: "roku/partner-api-key", content: "x").status == .forbidden)

            // Another organisation's catalog and one that does not exist: 404 on every route.
            for catalog in [Console.rivalCatalog, "com.nobody.app"] {
                let other = "/developer/catalog/\(catalog)/credentials"
                #expect(try await Console.get(client, other, session: dev).status == .notFound)
                #expect(try await Self.upload(client, other, session: dev, csrf: token, kind: "roku/partner-api-key", content: Self.secret).status == .notFound)
                #expect(try await Console.post(client, other + "/roku/partner-api-key/remove", session: dev, csrf: token).status == .notFound)
            }
            #expect(try await StoreCredentialStore(database: runtime.database).credentials(app: Console.rivalCatalog).isEmpty)

            let removed = try await Console.post(client, page + "/roku/partner-api-key/remove", session: dev, csrf: token)
            #expect(removed.status == .seeOther)
            #expect(try await StoreCredentialStore(database: runtime.database).credentials(app: Console.acmeCatalog).isEmpty)
            let actions = try await AuditLog(database: runtime.database).list().map(\.action).sorted()
            #expect(actions == [AuditAction.storeCredentialRemove.rawValue, AuditAction.storeCredentialSet.rawValue])
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorSealsOnAnyCatalogAndSupportOnlyReads(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Console.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let token = try await AdminAppsConsoleTests.csrf(client, session: olive)
            let page = "/admin/catalog/\(Console.rivalCatalog)/credentials"
            #expect(String(buffer: try await AdminConsoleTests.get(client, "/admin/catalog/\(Console.rivalCatalog)", session: olive).body).contains(page))
            let set = try await Self.upload(client, page, session: olive, csrf: token, kind: "amazon/shared-secret", content: "2:amazon-secret-0001")
            #expect(set.status == .seeOther)
            let shown = String(buffer: try await AdminConsoleTests.get(client, page, session: olive).body)
            #expect(shown.contains("ends with 0001") && !shown.contains("2:amazon-secret-0001") && shown.contains("Seal and save"))

            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let supportToken = try await AdminAppsConsoleTests.csrf(client, session: sam)
            let read = String(buffer: try await AdminConsoleTests.get(client, page, session: sam).body)
            #expect(read.contains("ends with 0001") && !read.contains("Seal and save"))
            #expect(try await Self.upload(client, page, session: sam, csrf: supportToken, kind: "amazon/shared-secret", content: "2:other-secret").status
                    == .forbidden)
            #expect(try await AdminConsoleTests.get(client, "/admin/catalog/com.nobody.app/credentials", session: olive).status == .notFound)
            let stored = try await StoreCredentialStore(database: runtime.database).credentials(app: Console.rivalCatalog)
            #expect(stored.count == 1 && stored[0].setBy == "olive@example.com")
        }
    }
}
