import Foundation
import SoukCore
import Testing

@Suite struct PackageManifestTests {
    static let digest = String(repeating: "ab", count: 32)

    static func valid() -> [String: Any] {
        [
            "appleItemId": "6476788646",
            "appleVersionId": 863_214_182,
            "bundleId": "com.example.app",
            "shortVersionString": "1.2",
            "bundleVersion": "12",
            "platforms": ["ios"],
            "minimumSystemVersions": ["ios": "17.2"],
            "requiredDeviceCapabilities": ["arm64"],
            "variants": [[
                "publicId": "d48693c5-214e-42e3-ae52-2fa4fa9326bc",
                "assetPath": "variant/d48693c5-214e-42e3-ae52-2fa4fa9326bc.ipa",
                "installTargets": [["device": "iphone", "os": "ios"]],
                "variantDetails": [
                    "compressedSize": 10, "uncompressedSize": 20,
                    "hashes": [["algorithm": "sha256", "chunkSize": 4, "encryptedChunkDigests": [digest], "unencryptedChunkDigests": []]],
                ],
            ]],
            "deltas": [[
                "publicId": "delta-1", "assetPath": "delta/delta-1.ipa",
                "deltaDetails": ["compressedSize": 3],
            ]],
        ]
    }

    func parse(_ object: [String: Any]) -> Result<PackageManifest, PackageError> {
        PackageManifest.parse(try! JSONSerialization.data(withJSONObject: object))
    }

    func error(_ edit: (inout [String: Any]) -> Void) -> PackageError? {
        var object = Self.valid()
        edit(&object)
        if case .failure(let error) = parse(object) { return error }
        return nil
    }

    @Test func readsEveryFieldSoukUses() throws {
        let manifest = try parse(Self.valid()).get()
        #expect(manifest.appleItemId == 6_476_788_646)
        #expect(manifest.appleVersionId == 863_214_182)
        #expect(manifest.platforms == [.iOS])
        #expect(manifest.minimumSystemVersions[.iOS] == OSVersion("17.2"))
        #expect(manifest.requiredDeviceCapabilities == ["arm64"])
        #expect(manifest.variants.first?.expectedSize == 10)
        #expect(manifest.variants.first?.chunkDigests?.chunkSize == 4)
        #expect(manifest.variants.first?.chunkDigests?.digests == [[UInt8](repeating: 0xAB, count: 32)])
        #expect(manifest.deltas.map(\.assetPath) == ["delta/delta-1.ipa"])
    }

    @Test(arguments: ["appleItemId", "appleVersionId", "bundleId", "shortVersionString", "bundleVersion", "platforms", "variants"])
    func namesAMissingRequiredField(_ field: String) {
        #expect(error { $0[field] = nil } == PackageError(field, "is required"))
    }

    @Test func namesFieldsWithTheWrongType() {
        #expect(error { $0["appleItemId"] = "12ab" }?.location == "appleItemId")
        #expect(error { $0["appleItemId"] = true }?.location == "appleItemId")
        #expect(error { $0["bundleId"] = 5 }?.location == "bundleId")
        #expect(error { $0["platforms"] = "ios" }?.location == "platforms")
        #expect(error { $0["platforms"] = [String]() }?.location == "platforms")
        #expect(error { $0["minimumSystemVersions"] = ["ios": "seventeen"] }?.location == "minimumSystemVersions.ios")
        #expect(error { $0["requiredDeviceCapabilities"] = [1] }?.location == "requiredDeviceCapabilities[0]")
    }

    @Test func namesTheVariantFieldAtFault() {
        func variantError(_ edit: @escaping (inout [String: Any]) -> Void) -> String? {
            error { object in
                var variants = object["variants"] as! [[String: Any]]
                edit(&variants[0])
                object["variants"] = variants
            }?.location
        }
        #expect(variantError { $0["publicId"] = nil } == "variants[0].publicId")
        #expect(variantError { $0["installTargets"] = [] } == "variants[0].installTargets")
        #expect(variantError { $0["installTargets"] = [["device": "iphone"]] } == "variants[0].installTargets[0].os")
        #expect(variantError { $0["variantDetails"] = ["compressedSize": -1] } == "variants[0].variantDetails.compressedSize")
        #expect(variantError { $0["variantDetails"] = ["compressedSize": "10"] } == "variants[0].variantDetails.compressedSize")
        #expect(variantError {
            $0["variantDetails"] = ["hashes": [["algorithm": "sha256", "chunkSize": 4, "encryptedChunkDigests": ["xyz"]]]]
        } == "variants[0].variantDetails.hashes[0].encryptedChunkDigests[0]")
    }

    @Test(arguments: ["../escape.ipa", "/etc/passwd", "variant/../../x.ipa", "variant%2F..%2Fx", "manifest.json", "signature"])
    func refusesAssetPathsOutsideThePackage(_ path: String) {
        let problem = error { object in
            var variants = object["variants"] as! [[String: Any]]
            variants[0]["assetPath"] = path
            object["variants"] = variants
        }
        #expect(problem?.location == "variants[0].assetPath")
    }

    @Test func refusesTwoAssetsWithOnePath() {
        let problem = error { object in
            var deltas = object["deltas"] as! [[String: Any]]
            deltas[0]["assetPath"] = "variant/d48693c5-214e-42e3-ae52-2fa4fa9326bc.ipa"
            object["deltas"] = deltas
        }
        #expect(problem?.location == "deltas[0].assetPath")
    }

    @Test func acceptsBase64Digests() throws {
        var object = Self.valid()
        var variants = object["variants"] as! [[String: Any]]
        let base64 = Data(repeating: 0xAB, count: 32).base64EncodedString()
        variants[0]["variantDetails"] = ["hashes": [["algorithm": "SHA256", "chunkSize": 4, "encryptedChunkDigests": [base64]]]]
        object["variants"] = variants
        #expect(try parse(object).get().variants[0].chunkDigests?.digests == [[UInt8](repeating: 0xAB, count: 32)])
    }

    @Test func refusesNonJSONAndNonObjects() {
        #expect((try? PackageManifest.parse(Data("not json".utf8)).get()) == nil)
        #expect((try? PackageManifest.parse(Data("[1]".utf8)).get()) == nil)
    }
}
