import Foundation
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukTestSupport
import Testing

@Suite struct PackageHostingTests {
    static let base = "/packages/6500000001/9000000001"

    /// Imports one sample and returns its manifest plus the bytes of its first variant.
    static func sample(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws -> (PackageManifest, Data) {
        let manifest = try await runtime.importSample(variantSize: 300_000, in: paths.folder)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(paths.folder)/sample-9000000001/\(manifest.variants[0].assetPath)"))
        return (manifest, bytes)
    }

    @Test(arguments: TestBackend.available)
    func servesTheManifestAtTheBaseURLWithAndWithoutSlash(_ backend: TestBackend) async throws {
        let box = Box<PackageManifest>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in box.value = try await Self.sample(runtime, paths).0 }) { client in
            var bodies: [String] = []
            for uri in [Self.base + "/manifest.json", Self.base + "/", Self.base, Self.base + "manifest.json"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == "application/json")
                    bodies.append(String(buffer: response.body))
                }
            }
            #expect(Set(bodies).count == 1)
            let manifest = try PackageManifest.parse(Data(bodies[0].utf8)).get()
            #expect(manifest == box.value)
        }
    }

    @Test(arguments: TestBackend.available)
    func headAndGetAgreeOnLengthAndValidators(_ backend: TestBackend) async throws {
        let box = Box<(PackageManifest, Data)>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in box.value = try await Self.sample(runtime, paths) }) { client in
            let (manifest, bytes) = box.value!
            let uri = "\(Self.base)/\(manifest.variants[0].assetPath)"
            let head = try await client.execute(uri: uri, method: .head)
            let get = try await client.execute(uri: uri, method: .get)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(bytes.count))
            #expect(get.headers[.contentLength] == String(bytes.count))
            #expect(head.headers[.eTag] == get.headers[.eTag])
            #expect(head.headers[.acceptRanges] == "bytes")
            #expect(head.headers[.lastModified].flatMap(HTTPDate.parse) != nil)
            #expect(Data(buffer: get.body) == bytes)
        }
    }

    @Test(arguments: TestBackend.available)
    func servesSingleRangesSuffixesAndRefusesRangesPastTheEnd(_ backend: TestBackend) async throws {
        let box = Box<(PackageManifest, Data)>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in box.value = try await Self.sample(runtime, paths) }) { client in
            let (manifest, bytes) = box.value!
            let uri = "\(Self.base)/\(manifest.variants[0].assetPath)"
            let size = bytes.count

            let middle = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=1000-1999"])
            #expect(middle.status == .partialContent)
            #expect(middle.headers[.contentRange] == "bytes 1000-1999/\(size)")
            #expect(middle.headers[.contentLength] == "1000")
            #expect(Data(buffer: middle.body) == bytes[1000..<2000])

            let resume = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=299000-"])
            #expect(Data(buffer: resume.body) == bytes[299_000...])

            let suffix = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=-10"])
            #expect(suffix.headers[.contentRange] == "bytes \(size - 10)-\(size - 1)/\(size)")
            #expect(Data(buffer: suffix.body) == bytes.suffix(10))

            let past = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=\(size)-"])
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers[.contentRange] == "bytes */\(size)")

            let several = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-1,5-6"])
            #expect(several.status == .ok)
            #expect(several.body.readableBytes == size)
        }
    }

    @Test(arguments: TestBackend.available)
    func conditionalRequestsUseTheETag(_ backend: TestBackend) async throws {
        let box = Box<(PackageManifest, Data)>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in box.value = try await Self.sample(runtime, paths) }) { client in
            let uri = "\(Self.base)/\(box.value!.0.variants[0].assetPath)"
            let first = try await client.execute(uri: uri, method: .get)
            let etag = try #require(first.headers[.eTag])
            let digest = Digest.hex(SHA256Helper.hash(Data(buffer: first.body)))
            #expect(etag == "\"\(digest)\"")

            let cached = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)

            let stale = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-9", .ifRange: "\"stale\""])
            #expect(stale.status == .ok)
            let fresh = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-9", .ifRange: etag])
            #expect(fresh.status == .partialContent)
        }
    }

    @Test(arguments: [
        "/packages/6500000001/9000000001/variant/..%2F..%2Fmanifest.json",
        "/packages/6500000001/9000000001/variant%2F..%2Fsignature",
        "/packages/6500000001/9000000001/variant/../signature",
        "/packages/6500000001/9000000001/%2e%2e/%2e%2e/souk.sqlite",
        "/packages/6500000001/9000000001/variant\\x.ipa",
    ])
    func hostilePathsNeverReachAFile(_ uri: String) async throws {
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in _ = try await Self.sample(runtime, paths) }) { client in
            let response = try await client.execute(uri: uri, method: .get)
            #expect(response.status == .badRequest || response.status == .notFound, "\(uri) → \(response.status)")
            #expect(response.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(arguments: TestBackend.available)
    func unknownVersionsFilesAndTakenDownAppsAre404(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: { runtime, paths in
            _ = try await Self.sample(runtime, paths)
            _ = try await runtime.importSample(appleItemId: 6_500_000_002, appleVersionId: 9_000_000_002, bundleId: "org.example.two",
                                               in: paths.folder)
            try await runtime.catalog.setAvailability(appleItemId: 6_500_000_002, to: .takenDown, reason: "test")
        }) { client in
            for uri in [Self.base + "/variant/nope.ipa", "/packages/6500000001/9000000009/manifest.json",
                        "/packages/6500000002/9000000002/manifest.json", "/packages/abc/9000000001/manifest.json",
                        "/packages/6500000001/9000000002/manifest.json"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                let problem = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(problem?["status"] as? Int == 404)
            }
        }
    }
}

/// Carries a value from the fixture's `prepare` step into the `@Sendable` test closure.
final class Box<Value>: @unchecked Sendable {
    var value: Value?
}

import Crypto
enum SHA256Helper {
    static func hash(_ data: Data) -> [UInt8] { Array(SHA256.hash(data: data)) }
}
