import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `downloadsVia = nginx`: Souk authorizes a download and hands it to nginx with
/// `X-Accel-Redirect` and an empty body (docs/deploy.md); `maxBodyBytes` refuses larger bodies
/// with `413`. nginx itself is exercised by scripts/e2e-cluster.sh and scripts/bench-packages.sh.
@Suite struct DownloadDeliveryTests {
    static let base = PackageHostingTests.base

    @Test(arguments: TestBackend.available)
    func aPackageFileIsHandedToNginxWithSouksValidatorsAndNoBytes(_ backend: TestBackend) async throws {
        let box = Box<(PackageManifest, Data, String)>()
        try await ServerFixture.withRuntime(backend, configure: { $0.downloadsVia = .nginx; $0.xAccelPrefix = "/internal-blobs/" },
                                            prepare: { runtime, paths in
            let (manifest, bytes) = try await PackageHostingTests.sample(runtime, paths)
            box.value = (manifest, bytes, runtime.config.blobsDir)
        }) { client, runtime in
            let (manifest, bytes, blobsDir) = box.value!
            let uri = "\(Self.base)/\(manifest.variants[0].assetPath)"
            let digest = Digest.hex(SHA256.hash(data: bytes))
            for method in [HTTPRequest.Method.get, .head] {
                let response = try await client.execute(uri: uri, method: method, headers: [.range: "bytes=10-19"])
                #expect(response.status == .ok, "nginx, not Souk, answers the range")
                #expect(response.body.readableBytes == 0)
                let target = try #require(response.headers[.init("X-Accel-Redirect")!])
                #expect(target == "/internal-blobs/sha256/\(digest.prefix(2))/\(digest)")
                // The path after the prefix is the blob under <data dir>/blobs/, which nginx's alias serves.
                let served = try Data(contentsOf: URL(fileURLWithPath: blobsDir + "/" + target.dropFirst("/internal-blobs/".count)))
                #expect(served == bytes)
                #expect(response.headers[.eTag] == "\"\(digest)\"")
                #expect(response.headers[.contentType] != nil)
                #expect(response.headers[.cacheControl] == "public, max-age=300")
                #expect(response.headers[.contentLength] == nil || response.headers[.contentLength] == "0")
                #expect(response.headers[.contentRange] == nil)
                #expect(response.headers[.acceptRanges] == nil, "nginx adds its own")
            }
            // Souk still answers what needs no bytes: a revalidation and a range past the end.
            let cached = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"\(digest)\""])
            #expect(cached.status == .notModified)
            #expect(cached.headers[.init("X-Accel-Redirect")!] == nil)
            let past = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=\(bytes.count)-"])
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers[.init("X-Accel-Redirect")!] == nil)
            // A taken-down app is a 404 and never a hand-off.
            _ = try await runtime.catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown, reason: nil)
            let gone = try await client.execute(uri: uri, method: .get)
            #expect(gone.status == .notFound)
            #expect(gone.headers[.init("X-Accel-Redirect")!] == nil)
            #expect(gone.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(arguments: TestBackend.available)
    func hostedContentIsHandedToNginxOnlyForAnEntitledBuyer(_ backend: TestBackend) async throws {
        try await CommercePurchaseFixture.with(backend, configure: { $0.downloadsVia = .nginx }) { f in
            try await HostedContentTests.grant(f, f.alice, "book.1")
            let content = try await HostedContentTests.importContent(f, version: "1.0", text: "pages")
            let alice = try await HostedContentTests.request(f, "reader.book.1", as: f.alice)
            #expect(alice.status == .ok)
            #expect(alice.body.readableBytes == 0)
            #expect(alice.headers[.init("X-Accel-Redirect")!] == "/_souk_blobs/" + BlobStore.relativePath(for: content.sha256))
            #expect(alice.headers[.contentDisposition] == "attachment; filename=\"reader.book.1-1.0.zip\"")
            #expect(alice.headers[.vary] == "Authorization")
            #expect(alice.headers[.cacheControl] == "private, no-cache")
            let bob = try await HostedContentTests.request(f, "reader.book.1", as: f.bob)
            #expect(bob.status == .forbidden)
            #expect(bob.headers[.init("X-Accel-Redirect")!] == nil)
            let nobody = try await HostedContentTests.request(f, "reader.book.1", as: nil)
            #expect(nobody.status == .unauthorized)
            #expect(nobody.headers[.init("X-Accel-Redirect")!] == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func bodiesOverMaxBodyBytesAre413ProblemsDeclaredOrChunked(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, .live, configure: { $0.maxBodyBytes = 4096 }) { client in
            let big = ByteBuffer(repeating: UInt8(ascii: "a"), count: 5000)
            for uri in ["/marketplace-kit/v1/license", "/oauth/token", "/marketplace-kit/v1/updates"] {
                let declared = try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: big)
                #expect(declared.status == .contentTooLarge, "\(uri)")
                #expect(declared.headers[.contentType] == "application/problem+json")
                #expect(String(buffer: declared.body).contains("larger than 4096 bytes"))
            }
            // Just under the limit, the endpoint reads the body and judges it (400, not 413).
            let small = try await client.execute(uri: "/marketplace-kit/v1/updates", method: .post,
                                                 headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(repeating: UInt8(ascii: " "), count: 4000))
            #expect(small.status != .contentTooLarge)

            // A chunked body (no Content-Length) is counted as it arrives.
            let port = try #require(client.port)
            let chunks = (0..<5).map { _ in ByteBuffer(repeating: UInt8(ascii: "b"), count: 1000) }
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/marketplace-kit/v1/updates")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            let stream = AsyncStream<ByteBuffer> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            request.body = .stream(stream, length: .unknown)
            let chunked = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(chunked.status == .payloadTooLarge)
            #expect(chunked.headers.first(name: "Content-Type") == "application/problem+json")
        }
    }

    @Test func theSettingsAreReadAndChecked() async throws {
        let defaults = try await SoukConfig.load(flags: [:], environment: [:])
        #expect(defaults.maxBodyBytes == 1 << 20)
        #expect(defaults.downloadsVia == .souk)
        #expect(defaults.xAccelPrefix == "/_souk_blobs/")
        let set = try await SoukConfig.load(flags: [:], environment: ["SOUK_MAX_BODY_BYTES": "65536", "SOUK_DOWNLOADS_VIA": "nginx",
                                                                     "SOUK_X_ACCEL_PREFIX": "/blobs-internal/"])
        #expect(set.maxBodyBytes == 65536)
        #expect(set.downloadsVia == .nginx)
        #expect(set.xAccelPrefix == "/blobs-internal/")
        for (key, value) in [("SOUK_DOWNLOADS_VIA", "apache"), ("SOUK_X_ACCEL_PREFIX", "/../etc/"), ("SOUK_X_ACCEL_PREFIX", "blobs"),
                             ("SOUK_MAX_BODY_BYTES", "12")] {
            await #expect(throws: ConfigError.self, "\(key)=\(value)") { try await SoukConfig.load(flags: [:], environment: [key: value]) }
        }
    }

    @Test func theObjectStoreSettingsAreReadFromTheDocumentedNamesAndChecked() async throws {
        #expect(try await SoukConfig.load(flags: [:], environment: [:]).objectStore == nil)
        let environment = ["SOUK_BLOB_STORE": "s3", "SOUK_S3_ENDPOINT": "http://127.0.0.1:9000/", "SOUK_S3_BUCKET": "souk-blobs",
                           "SOUK_S3_REGION": "eu-west-1", "SOUK_S3_ACCESS_KEY_ID": "AKID", "SOUK_S3_SECRET_ACCESS_KEY": "secret"]
        let store = try #require(try await SoukConfig.load(flags: [:], environment: environment).objectStore)
        #expect(store == S3ObjectStore.Settings(endpoint: "http://127.0.0.1:9000", bucket: "souk-blobs", region: "eu-west-1",
                                                accessKeyId: "AKID", secretAccessKey: "secret"))
        var defaults = environment
        defaults["SOUK_S3_REGION"] = nil
        #expect(try await SoukConfig.load(flags: [:], environment: defaults).objectStore?.region == "us-east-1")
        for (key, value) in [("SOUK_BLOB_STORE", "gcs"), ("SOUK_S3_BUCKET", "Bad_Bucket"), ("SOUK_S3_ENDPOINT", "ftp://x"),
                             ("SOUK_S3_SECRET_ACCESS_KEY", "")] {
            var broken = environment
            broken[key] = value
            await #expect(throws: ConfigError.self, "\(key)=\(value)") { try await SoukConfig.load(flags: [:], environment: broken) }
        }
        var missing = environment
        missing["SOUK_S3_ACCESS_KEY_ID"] = nil
        await #expect(throws: ConfigError.self) { try await SoukConfig.load(flags: [:], environment: missing) }
    }
}
