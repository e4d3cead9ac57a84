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

/// A key blob belongs to exactly one (app, version, asset): a license request gets the key
/// material of the variant it names only when that variant is part of the version being licensed.
@Suite struct LicenseKeyBlobTests {
    static let ownKey = Data("KEY OF APP 1 VERSION 102".utf8).base64EncodedString()
    static let olderKey = Data("KEY OF APP 1 VERSION 101".utf8).base64EncodedString()
    static let gatedKey = Data("SECRET KEY OF GATED APP 2".utf8).base64EncodedString()

    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AppDataTests.prepare(runtime, paths)
        let store = LicenseStore(database: runtime.database)
        try await store.setKeyBlob(assetPublicId: "asset-1-102", appleItemId: 1, appleVersionId: 102, keyBlob: ownKey)
        try await store.setKeyBlob(assetPublicId: "asset-1-101", appleItemId: 1, appleVersionId: 101, keyBlob: olderKey)
        try await store.setKeyBlob(assetPublicId: "asset-2-201", appleItemId: 2, appleVersionId: 201, keyBlob: gatedKey)
    }

    @Test(arguments: TestBackend.available)
    func aLicenseCarriesOnlyTheKeyBlobOfItsOwnVersionsVariant(_ backend: TestBackend) async throws {
        let sidecar = FakeLicenseSidecar()
        try await Application(router: sidecar.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { sidecarClient in
            let port = try #require(sidecarClient.port)
            try await ServerFixture.with(backend, configure: { config in
                config.licensing.issuer = "sidecar"
                config.licensing.sidecarURL = "http://127.0.0.1:\(port)"
                config.licensing.sidecarToken = FakeLicenseSidecar.token
            }, prepare: Self.prepare) { client in
                let licensing = try await LicenseClient.make(client)
                /// The apps refused and everything the answer carries (the sidecar's license holds what Souk sent it).
                func ask(_ asset: String, device: String) async throws -> (unlicensed: [String], answer: String) {
                    let response = try await licensing.request(device: device, apps: [(1, 102)], assets: [1: asset])
                    #expect(response.status == .ok)
                    let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                    let license = try #require((body["license"] as? String).flatMap { Data(base64Encoded: $0) })
                    return (body["unlicensedApps"] as? [String] ?? [], String(buffer: response.body) + String(decoding: license, as: UTF8.self))
                }

                // Free app 1 naming gated app 2's variant: app 1 is refused, app 2's key is nowhere.
                let stolen = try await ask("asset-2-201", device: "0a0a")
                #expect(stolen.unlicensed == ["1"])
                #expect(!stolen.answer.contains(Self.gatedKey))
                #expect(!stolen.answer.contains("licenseId"))

                // Another version's variant of the same app is refused too.
                let older = try await ask("asset-1-101", device: "0b0b")
                #expect(older.unlicensed == ["1"])
                #expect(!older.answer.contains(Self.olderKey))

                // The version's own variant: licensed, with its key and no other.
                let own = try await ask("asset-1-102", device: "0c0c")
                #expect(own.unlicensed.isEmpty)
                #expect(own.answer.contains(#""keyBlob":"\#(Self.ownKey)""#))
                #expect(!own.answer.contains(Self.olderKey) && !own.answer.contains(Self.gatedKey))

                // A variant of the version's package with no key blob recorded: licensed without a key.
                let manifest = try JSONValue.parse(Array(buffer: try await client.execute(uri: "/packages/1/102/manifest.json", method: .get).body))
                let variant = try #require(manifest["variants"]?.arrayValue?.first?["publicId"]?.stringValue)
                let packaged = try await ask(variant, device: "0d0d")
                #expect(packaged.unlicensed.isEmpty)
                #expect(packaged.answer.contains(#""keyBlob":null"#))

                // A variant nobody knows is refused.
                #expect(try await ask("no-such-variant", device: "0e0e").unlicensed == ["1"])
                #expect(sidecar.received.withLock { $0 }.allSatisfy { !$0.contains(Self.gatedKey) && !$0.contains(Self.olderKey) })
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func keyBlobsAreLookedUpByAppVersionAndAsset(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { _, runtime in
            let store = LicenseStore(database: runtime.database)
            let gated = try await store.keyBlob(appleItemId: 2, appleVersionId: 201, assetPublicId: "asset-2-201")
            let stolen = try await store.keyBlob(appleItemId: 1, appleVersionId: 102, assetPublicId: "asset-2-201")
            let otherApp = try await store.asset("asset-2-201", appleItemId: 1, appleVersionId: 102)
            let otherVersion = try await store.asset("asset-1-101", appleItemId: 1, appleVersionId: 102)
            let own = try await store.asset("asset-1-102", appleItemId: 1, appleVersionId: 102)
            #expect(gated == Self.gatedKey)
            #expect(stolen == nil)
            #expect(otherApp == .notInVersion)
            #expect(otherVersion == .notInVersion)
            #expect(own == .keyBlob(Self.ownKey))
        }
    }
}
