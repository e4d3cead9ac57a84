import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// A local App Store Connect: the API's package-version and app documents (behind a checked
/// ES256 bearer token) and the pre-signed package download.
final class FakeAppStoreConnect: Sendable {
    let apiKey = P256.Signing.PrivateKey()
    let keyId = "ASCKEY1234"
    let issuerId = "69a6de7f-0000-47e3-e053-5b8c7c11a4d1"
    let zipPath: String
    let requests = Mutex<[String]>([])
    let failDownloads = Mutex(false)

    init(zipPath: String) {
        self.zipPath = zipPath
    }

    struct Claims: JWTPayload {
        var iss: String
        var aud: String
        var iat: Int64
        var exp: Int64
        func verify(using algorithm: some JWTAlgorithm) async throws {
            guard aud == "appstoreconnect-v1", exp > Int64(Date().timeIntervalSince1970), exp - iat <= 1200 else {
                throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "aud/exp")
            }
        }
    }

    func authorized(_ request: Request) async -> Bool {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return false }
        let keys = JWTKeyCollection()
        guard let publicKey = try? ES256PublicKey(backing: apiKey.publicKey) else { return false }
        await keys.add(ecdsa: publicKey, kid: JWKIdentifier(string: keyId))
        guard let claims = try? await keys.verify(String(header.dropFirst(7)), as: Claims.self) else { return false }
        return claims.iss == issuerId
    }

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.get("v1/alternativeDistributionPackageVersions/:id") { request, context -> Response in
            self.requests.withLock { $0.append(request.uri.path) }
            guard await self.authorized(request) else { return Response(status: .unauthorized) }
            let id = context.parameters.get("id") ?? ""
            let host = request.head.authority ?? "127.0.0.1"
            let json = #"{"data": {"type": "alternativeDistributionPackageVersions", "id": "\#(id)", "attributes": {"url": "http://\#(host)/itunes-assets/package.zip?accessKey=abc", "urlExpirationDate": "2030-01-01T00:00:00Z", "version": "1", "state": "COMPLETED"}}}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        router.get("v1/alternativeDistributionPackageVersions/:id/variants") { request, _ -> Response in
            self.requests.withLock { $0.append(request.uri.path) }
            guard await self.authorized(request) else { return Response(status: .unauthorized) }
            let json = #"{"data": [{"type": "alternativeDistributionPackageVariants", "id": "variant-iphone", "attributes": {"alternativeDistributionKeyBlob": "a2V5LWJsb2I=", "fileChecksum": "x"}}]}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        router.get("v1/apps/:id") { request, _ -> Response in
            self.requests.withLock { $0.append(request.uri.path) }
            guard await self.authorized(request) else { return Response(status: .unauthorized) }
            let json = #"{"data": {"type": "apps", "id": "6500000001", "attributes": {"name": "Sample From ASC", "bundleId": "org.example.sample"}}}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        router.get("itunes-assets/package.zip") { request, _ -> Response in
            self.requests.withLock { $0.append(request.uri.path) }
            if self.failDownloads.withLock({ $0 }) { return Response(status: .internalServerError) }
            let data = try Data(contentsOf: URL(fileURLWithPath: self.zipPath))
            return Response(status: .ok, headers: [.contentType: "application/zip"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return router
    }

    func count(_ prefix: String) -> Int {
        requests.withLock { $0.filter { $0.hasPrefix(prefix) }.count }
    }
}

@Suite struct AppStoreConnectWebhookTests {
    static let secret = "a webhook secret of some length"

    static func event(_ type: String, id: String, attributes: String) -> String {
        #"{"data": {"type": "\#(type)", "version": 1, "id": "\#(id)", "timestamp": "2026-11-22T10:00:00Z", "attributes": \#(attributes)}}"#
    }

    static let available = event("AlternativeDistributionPackageVersionAvailable", id: "evt-1", attributes: """
        {"marketplaceAppId": "6446000000", "appId": "6500000001", "alternativeDistributionPackageId": "pkg-1",
         "alternativeDistributionPackageVersionId": "pkgv-1", "alternativeDistributionPackageVersionNum": 1, "eventTimestamp": "2026-11-22T10:00:00Z"}
        """)

    static func send(_ client: any TestClientProtocol, _ body: String, signature: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[HTTPField.Name("x-apple-signature")!] = signature ?? WebhookSignature.sign(Array(body.utf8), secret: secret)
        return try await client.execute(uri: "/webhooks/app-store-connect", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static let restore = #"{"apps": [{"appleItemId": "6500000001", "appleVersionId": "0"}], "platform": "iOS", "osVersion": "18.0"}"#

    /// Runs `test` against a Souk whose App Store Connect is a local fake serving a sample package.
    static func withFake(_ backend: TestBackend, secret: String? = Self.secret,
                         _ test: @escaping @Sendable (any TestClientProtocol, FakeAppStoreConnect, SoukRuntime) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sample = folder.path + "/sample"
        _ = try SamplePackageMaker(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, bundleId: "org.example.sample",
                                   shortVersion: "1.0", bundleVersion: "1", minimumOS: OSVersion("17.0")!, variantSize: 50_000)
            .write(to: sample)
        let zip = folder.path + "/package.zip"
        try PackageImporterZip.zip(contentsOf: sample, to: zip)
        let fake = FakeAppStoreConnect(zipPath: zip)
        let keyPath = folder.path + "/AuthKey.p8"
        try fake.apiKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        try await Application(router: fake.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { fakeClient in
            let port = try #require(fakeClient.port)
            let box = Box<SoukRuntime>()
            try await ServerFixture.with(backend, configure: { config in
                config.appStoreConnect.webhookSecret = secret
                config.appStoreConnect.baseURL = "http://127.0.0.1:\(port)"
                config.appStoreConnect.keyId = fake.keyId
                config.appStoreConnect.issuerId = fake.issuerId
                config.appStoreConnect.privateKeyPath = keyPath
            }, prepare: { runtime, _ in
                let marketplace = try await runtime.catalog.marketplace(defaultKeyId: runtime.keys.installVerificationKeyId)
                marketplace.appleItemId = 6_446_000_000
                try await runtime.catalog.updateMarketplace(marketplace)
                box.value = runtime
            }) { client in
                try await test(client, fake, box.value!)
            }
        }
    }

    /// Processes what is due (the server's worker may be doing the same: claims keep each event with
    /// one of them) and waits until event `id` satisfies `done`.
    @discardableResult
    static func settle(_ runtime: SoukRuntime, _ id: String,
                       until done: @escaping (AppStoreConnectEventRecord) -> Bool = { $0.state == .done }) async throws -> AppStoreConnectEventRecord {
        let store = AppStoreConnectEventStore(database: runtime.database)
        for _ in 0..<2400 {  // two minutes at most: a loaded machine lags by tens of seconds
            await AppStoreConnectEventProcessor(runtime: runtime, client: try runtime.appStoreConnectClient()).processDue()
            if let record = try await store.record(eventId: id), done(record) { return record }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CatalogError.invalid("event \(id) did not settle")
    }

    @Test(arguments: TestBackend.available)
    func aNewPackageIsDownloadedAndImportedOnceAndWithdrawalsAnswer404(_ backend: TestBackend) async throws {
        try await Self.withFake(backend) { client, fake, runtime in
            // A wrong signature changes nothing.
            let forged = try await Self.send(client, Self.available, signature: "hmacsha256=" + String(repeating: "0", count: 64))
            #expect(forged.status == .unauthorized)
            #expect(forged.headers[.wwwAuthenticate]?.hasPrefix("HMAC-SHA256 ") == true, "a 401 carries its challenge")
            #expect(try await Self.send(client, Self.available, signature: "").status == .unauthorized)
            // Unsigned is refused as it would be by a configured server.
            let unsigned = try await client.execute(uri: "/webhooks/app-store-connect", method: .post, headers: [.contentType: "application/json"],
                                                    body: ByteBuffer(string: Self.available))
            #expect(unsigned.status == .unauthorized && unsigned.headers[.wwwAuthenticate] != nil)
            #expect(try await AppStoreConnectEventStore(database: runtime.database).recent().isEmpty)

            let accepted = try await Self.send(client, Self.available)
            #expect(accepted.status == .accepted)
            try await Self.settle(runtime, "evt-1")
            #expect(fake.count("/itunes-assets/") == 1)
            #expect(try await LicenseStore(database: runtime.database).keyBlob(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, assetPublicId: "variant-iphone") == "a2V5LWJsb2I=")
            let app = try await runtime.catalog.app(appleItemId: 6_500_000_001)
            #expect(app.name == "Sample From ASC")  // the app was created from App Store Connect's record
            let restored = try AppDataTests.json(try await AppDataTests.post(client, "restore", Self.restore))
            #expect((restored["restores"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "9000000001")
            #expect(try await client.execute(uri: "/packages/6500000001/9000000001/manifest.json", method: .get).status == .ok)

            // The same event again: acknowledged, nothing downloaded again.
            let duplicate = try await Self.send(client, Self.available)
            #expect(duplicate.status == .ok)
            #expect(String(buffer: duplicate.body).contains("duplicate"))
            try await Self.settle(runtime, "evt-1")
            #expect(fake.count("/itunes-assets/") == 1)

            // The package's version is withdrawn: a 404 failure from then on, and no package.
            let unavailable = Self.event("AppVersionUnavailable", id: "evt-2", attributes: #"{"alternativeDistributionPackageIds": ["pkg-1"]}"#)
            #expect(try await Self.send(client, unavailable).status == .accepted)
            try await Self.settle(runtime, "evt-2")
            let afterWithdrawal = try AppDataTests.json(try await AppDataTests.post(client, "restore", Self.restore))
            #expect((afterWithdrawal["restores"] as? [Any])?.isEmpty == true)
            #expect(((afterWithdrawal["failures"] as? [[String: Any]])?.first?["failure"] as? [String: Any])?["code"] as? Int == 404)
            #expect(try await client.execute(uri: "/packages/6500000001/9000000001/manifest.json", method: .get).status == .notFound)
        }
    }

    @Test func anUnavailableAppAnswers404AndUnknownTypesAreAcknowledged() async throws {
        try await Self.withFake(.sqlite) { client, _, runtime in
            #expect(try await Self.send(client, Self.available).status == .accepted)
            try await Self.settle(runtime, "evt-1")
            let gone = Self.event("AppUnavailable", id: "evt-3", attributes: #"{"appId": "6500000001"}"#)
            #expect(try await Self.send(client, gone).status == .accepted)
            let other = Self.event("SomethingApple", id: "evt-4", attributes: "{}")
            #expect(try await Self.send(client, other).status == .accepted)
            try await Self.settle(runtime, "evt-3")
            try await Self.settle(runtime, "evt-4")
            let answer = try AppDataTests.json(try await AppDataTests.post(client, "restore", Self.restore))
            let failure = try #require((answer["failures"] as? [[String: Any]])?.first)
            #expect(failure["appleItemId"] as? String == "6500000001")
            #expect((failure["failure"] as? [String: Any])?["code"] as? Int == 404)
            #expect(try await runtime.catalog.app(appleItemId: 6_500_000_001).availability == .removedByDeveloper)
        }
    }

    @Test func aFailedDownloadIsRetriedLaterAndMalformedEventsAre400() async throws {
        try await Self.withFake(.sqlite) { client, fake, runtime in
            fake.failDownloads.withLock { $0 = true }
            #expect(try await Self.send(client, Self.available).status == .accepted)
            let store = AppStoreConnectEventStore(database: runtime.database)
            let failed = try await Self.settle(runtime, "evt-1") { $0.lastError != nil }
            #expect(failed.state == .pending)
            #expect(failed.attempts == 1)
            #expect(failed.lastError?.contains("500") == true)
            #expect(failed.nextAttemptAt > Date())
            #expect(await AppStoreConnectEventProcessor(runtime: runtime, client: try runtime.appStoreConnectClient()).processDue() == 0)  // not due yet
            fake.failDownloads.withLock { $0 = false }
            try await store.retry(eventId: "evt-1")
            try await Self.settle(runtime, "evt-1")
            #expect(fake.count("/itunes-assets/") == 2)

            #expect(try await Self.send(client, #"{"data": {"type": "AppUnavailable"}}"#).status == .badRequest)
            #expect(try await Self.send(client, "not json").status == .badRequest)
            #expect(try await Self.send(client, String(repeating: " ", count: (1 << 20) + 1)).status == .contentTooLarge)
            #expect(try await store.recent().count == 1)  // none of the refused bodies was recorded
        }
    }

    /// Not an outage (no 5xx): the endpoint is not there until the operator sets the secret; Apple retries.
    @Test func withoutASecretTheWebhookIsNotThere() async throws {
        try await Self.withFake(.sqlite, secret: nil) { client, _, runtime in
            let response = try await Self.send(client, Self.available)
            #expect(response.status == .notFound)
            #expect(String(buffer: response.body).contains("not configured on this server"))
            // Unsigned is refused as it would be by a configured server.
            let unsigned = try await client.execute(uri: "/webhooks/app-store-connect", method: .post, headers: [.contentType: "application/json"],
                                                    body: ByteBuffer(string: Self.available))
            #expect(unsigned.status == .unauthorized && unsigned.headers[.wwwAuthenticate] != nil)
            #expect(try await AppStoreConnectEventStore(database: runtime.database).recent().isEmpty)
        }
    }
}

/// Zips a folder's contents with Python (as the package importer tests do).
enum PackageImporterZip {
    static func zip(contentsOf folder: String, to zipPath: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import shutil,sys; shutil.make_archive(sys.argv[1][:-4], 'zip', sys.argv[2])", zipPath, folder]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CatalogError.invalid("zip failed") }
    }
}
