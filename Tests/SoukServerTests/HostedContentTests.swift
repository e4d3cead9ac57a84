import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `GET|HEAD /commerce/<app>/content/<productId>[/<contentVersion>|/manifest.json]` through the
/// real application: entitled bearers only, zips with `ETag`, ranges and `HEAD`, the manifest.
@Suite struct HostedContentTests {
    typealias F = CommercePurchaseFixture

    /// Imports a content package of `product` at `version` whose one file holds `text`.
    @discardableResult
    static func importContent(_ f: F, product: String = "reader.book.1", version: String, text: String) async throws -> HostedContent {
        let folder = f.runtime.config.workDir + "/pkg-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/Contents", withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["ContentVersion": version, "IAPProductIdentifier": product], format: .binary, options: 0)
            .write(to: URL(fileURLWithPath: folder + "/ContentInfo.plist"))
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/Contents/page.txt"))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = HostedContentStore(database: f.runtime.database, blobs: f.runtime.blobs, workArea: f.runtime.config.workDir)
        guard case .imported(let content) = try await store.importPackage(at: folder, app: F.app) else {
            throw TestSetupError("content \(product) \(version) was already imported")
        }
        return content
    }

    /// Opens `entitlement` for `person` (a promotional grant, as `souk entitlements grant` does).
    static func grant(_ f: F, _ person: F.Person, _ entitlement: String) async throws {
        let catalog = try #require(try await f.runtime.commerceCatalogs.state(app: F.app)).catalog
        _ = try await EntitlementGrantStore(purchases: f.runtime.purchases).grant(account: person.account, catalog: catalog,
                                                                                  entitlement: entitlement, until: nil)
    }

    static func request(_ f: F, _ path: String, as person: F.Person?, method: HTTPRequest.Method = .get,
                        headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if let person { headers[.authorization] = "Bearer \(person.token)" }
        return try await f.client.execute(uri: "/commerce/\(F.app)/content/\(path)", method: method, headers: headers)
    }

    static func sha256(_ buffer: ByteBuffer) -> String { Digest.hex(SHA256.hash(data: Data(buffer: buffer))) }

    @Test(arguments: TestBackend.available)
    func anEntitledBearerDownloadsTheNewestZipWithETagRangesAndHead(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            try await Self.grant(f, f.alice, "book.1")  // covers reader.book.1's only entitlement
            let old = try await Self.importContent(f, version: "1.9", text: "old pages")
            let new = try await Self.importContent(f, version: "1.10", text: "new pages, more of them")

            let latest = try await Self.request(f, "reader.book.1", as: f.alice)
            #expect(latest.status == .ok)
            #expect(latest.headers[.contentType] == "application/zip")
            #expect(latest.headers[.eTag] == "\"\(new.sha256)\"")
            #expect(latest.headers[.acceptRanges] == "bytes")
            #expect(latest.headers[.contentLength] == String(new.size))
            #expect(latest.headers[.contentLocation] == "https://souk.test/commerce/\(F.app)/content/reader.book.1/1.10")
            #expect(latest.headers[.cacheControl] == "private, no-cache")
            #expect(latest.headers[.vary] == "Authorization")
            #expect(latest.headers[.contentDisposition] == "attachment; filename=\"reader.book.1-1.10.zip\"")
            #expect(Self.sha256(latest.body) == new.sha256)

            let versioned = try await Self.request(f, "reader.book.1/1.9", as: f.alice)
            #expect(versioned.status == .ok)
            #expect(Self.sha256(versioned.body) == old.sha256)
            #expect(try await Self.request(f, "reader.book.1/1.9.0", as: f.alice).headers[.eTag] == "\"\(old.sha256)\"")

            let part = try await Self.request(f, "reader.book.1/1.10", as: f.alice, headers: [.range: "bytes=10-29"])
            #expect(part.status == .partialContent)
            #expect(part.headers[.contentRange] == "bytes 10-29/\(new.size)")
            #expect(Data(buffer: part.body) == Data(buffer: latest.body).subdata(in: 10..<30))
            // A resume against a version that has since changed gets the whole file.
            let stale = try await Self.request(f, "reader.book.1", as: f.alice, headers: [.range: "bytes=10-", .ifRange: "\"\(old.sha256)\""])
            #expect(stale.status == .ok)
            let beyond = try await Self.request(f, "reader.book.1", as: f.alice, headers: [.range: "bytes=\(new.size)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(new.size)")

            let cached = try await Self.request(f, "reader.book.1", as: f.alice, headers: [.ifNoneMatch: "\"\(new.sha256)\""])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
            let head = try await Self.request(f, "reader.book.1", as: f.alice, method: .head)
            #expect(head.status == .ok)
            #expect(head.headers[.contentLength] == String(new.size))
            #expect(head.headers[.eTag] == "\"\(new.sha256)\"")
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func theManifestListsVersionsNewestFirstWithSizesAndDigests(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            // A real purchase signed by the App Store test chain entitles Alice to the 30-day pass.
            #expect(try await f.buy("reader.pass.30d", as: f.alice).status == .created)
            var imported: [HostedContent] = []
            for version in ["2", "10", "2.0.1"] {
                imported.append(try await Self.importContent(f, product: "reader.pass.30d", version: version, text: "pass \(version)"))
            }
            let response = try await Self.request(f, "reader.pass.30d/manifest.json", as: f.alice)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.headers[.cacheControl] == "private, no-cache")
            let manifest = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            #expect(manifest?["app"] as? String == F.app)
            #expect(manifest?["productId"] as? String == "reader.pass.30d")
            let versions = try #require(manifest?["versions"] as? [[String: Any]])
            #expect(versions.map { $0["contentVersion"] as? String } == ["10", "2.0.1", "2"])
            for (entry, content) in zip(versions, [imported[1], imported[2], imported[0]]) {
                #expect(Set(entry.keys) == ["contentVersion", "size", "sha256", "url"])
                #expect((entry["size"] as? NSNumber)?.int64Value == content.size)
                #expect(entry["sha256"] as? String == content.sha256)
                #expect(entry["url"] as? String == "https://souk.test/commerce/\(F.app)/content/reader.pass.30d/\(content.contentVersion)")
            }
            // Each listed URL serves bytes with the listed digest.
            let second = try await Self.request(f, "reader.pass.30d/2.0.1", as: f.alice)
            #expect(Self.sha256(second.body) == imported[2].sha256)

            let etag = try #require(response.headers[.eTag])
            #expect(try await Self.request(f, "reader.pass.30d/manifest.json", as: f.alice, headers: [.ifNoneMatch: etag]).status == .notModified)
            let head = try await Self.request(f, "reader.pass.30d/manifest.json", as: f.alice, method: .head)
            #expect(head.status == .ok)
            #expect(head.headers[.contentLength] == String(response.body.readableBytes))
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func otherBearersAreRefusedAndUnknownThingsAreNotFound(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            try await Self.importContent(f, version: "1", text: "pages")
            try await Self.grant(f, f.alice, "book.1")
            try await Self.grant(f, f.bob, "premium")  // entitles Bob to the monthly plan, not to the book

            for path in ["reader.book.1", "reader.book.1/1", "reader.book.1/manifest.json"] {
                let forbidden = try await Self.request(f, path, as: f.bob)
                #expect(forbidden.status == .forbidden, "\(path)")
                #expect(try F.problemType(forbidden) == "urn:souk:problem:not-entitled")
                #expect(try await Self.request(f, path, as: f.bob, method: .head).status == .forbidden)

                let anonymous = try await Self.request(f, path, as: nil)
                #expect(anonymous.status == .unauthorized)
                #expect(anonymous.headers[.wwwAuthenticate] == "Bearer realm=\"https://souk.test\"")
                let badToken = try await f.client.execute(uri: "/commerce/\(F.app)/content/\(path)", method: .get,
                                                          headers: [.authorization: "Bearer not-a-token"])
                #expect(badToken.status == .unauthorized)
                #expect(badToken.headers[.wwwAuthenticate]?.contains("error=\"invalid_token\"") == true)
            }
            // Unknown version, product or app; a product that has no content.
            for path in ["reader.book.1/2", "reader.book.1/1.x", "reader.book.99", "reader.book.99/manifest.json"] {
                #expect(try await Self.request(f, path, as: f.alice).status == .notFound, "\(path)")
            }
            let other = try await f.client.execute(uri: "/commerce/com.example.none/content/reader.book.1", method: .get,
                                                   headers: [.authorization: "Bearer \(f.alice.token)"])
            #expect(other.status == .notFound)
            #expect(try await Self.request(f, "reader.monthly", as: f.bob).status == .notFound)
            #expect(try await Self.request(f, "reader.monthly/manifest.json", as: f.bob).status == .notFound)
            #expect(try await Self.request(f, "reader.book.1", as: f.alice).status == .ok)
        }
    }
}
