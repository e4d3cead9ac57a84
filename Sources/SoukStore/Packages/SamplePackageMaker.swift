import Crypto
import Foundation
import SoukCore

/// Writes a realistic alternative distribution package for demos and tests: a manifest with an
/// iPhone and an iPad variant (install targets, sizes, SHA-256 chunk digests), a signature file and
/// the variant files themselves.
///
/// The contents are a pure function of the options, so making the same sample twice gives the same
/// bytes (and importing both is harmless). The signature file is a placeholder: real packages carry
/// Apple's signature, which Souk serves as it is and the device checks.
public struct SamplePackageMaker: Sendable {
    public var appleItemId: UInt64
    public var appleVersionId: UInt64
    public var bundleId: String
    public var shortVersion: String
    public var bundleVersion: String
    public var minimumOS: OSVersion
    public var variantSize: Int
    public var chunkSize: Int

    public init(appleItemId: UInt64, appleVersionId: UInt64, bundleId: String, shortVersion: String,
                bundleVersion: String, minimumOS: OSVersion, variantSize: Int = 1 << 20, chunkSize: Int = 1 << 20) {
        self.appleItemId = appleItemId
        self.appleVersionId = appleVersionId
        self.bundleId = bundleId
        self.shortVersion = shortVersion
        self.bundleVersion = bundleVersion
        self.minimumOS = minimumOS
        self.variantSize = variantSize
        self.chunkSize = chunkSize
    }

    /// The two variants: `(device, publicId)`.
    var variants: [(device: String, publicId: String)] {
        ["iphone", "ipad"].map { ($0, publicId(for: $0)) }
    }

    /// Writes the package into `folder` (created if needed) and returns the manifest written.
    @discardableResult
    public func write(to folder: String) throws -> PackageManifest {
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: folder + "/variant", withIntermediateDirectories: true)
        var variantEntries: [[String: Any]] = []
        for (index, variant) in variants.enumerated() {
            let assetPath = "variant/\(variant.publicId).ipa"
            let digests = try writeVariant(to: "\(folder)/\(assetPath)", seed: UInt64(index + 1))
            variantEntries.append([
                "publicId": variant.publicId,
                "assetPath": assetPath,
                "installTargets": [["device": variant.device, "os": "ios"]],
                "variantDetails": [
                    "compressedSize": variantSize,
                    "uncompressedSize": variantSize,
                    "hashes": [[
                        "algorithm": "sha256",
                        "chunkSize": chunkSize,
                        "encryptedChunkDigests": digests.map { Digest.hex($0) },
                        "unencryptedChunkDigests": digests.map { Digest.hex($0) },
                    ]],
                ],
            ])
        }
        let manifest: [String: Any] = [
            "manifestSchemaVersion": 1,
            "distributionPackageRevision": 1,
            "appleItemId": String(appleItemId),
            "appleVersionId": String(appleVersionId),
            "bundleId": bundleId,
            "shortVersionString": shortVersion,
            "bundleVersion": bundleVersion,
            "platforms": ["ios"],
            "minimumSystemVersions": ["ios": minimumOS.description],
            "requiredDeviceCapabilities": ["arm64"],
            "appInstallDeterminants": [String](),
            "hasMessagesExtension": false,
            "isLaunchProhibited": false,
            "variants": variantEntries,
            "deltas": [[String: Any]](),
        ]
        let data = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: folder + "/" + PackagePath.manifest))
        let signature = "SOUK-SAMPLE-SIGNATURE\nsha256(manifest.json)=\(Digest.hex(SHA256.hash(data: data)))\n"
        try Data(signature.utf8).write(to: URL(fileURLWithPath: folder + "/" + PackagePath.signature))
        return try PackageManifest.parse(data).get()
    }

    /// Writes `variantSize` pseudo-random bytes in constant memory; returns the chunk digests.
    private func writeVariant(to path: String, seed: UInt64) throws -> [[UInt8]] {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BlobError.unwritable(path)
        }
        defer { try? handle.close() }
        var generator = SplitMix64(state: appleVersionId &* 0x9E37_79B9_7F4A_7C15 &+ seed)
        var digests: [[UInt8]] = []
        var remaining = variantSize
        while remaining > 0 {
            let count = min(chunkSize, remaining)
            var bytes = [UInt8](repeating: 0, count: count)
            var offset = 0
            while offset < count {
                var word = generator.next()
                for _ in 0..<8 where offset < count {
                    bytes[offset] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    offset += 1
                }
            }
            digests.append(Array(SHA256.hash(data: bytes)))
            try handle.write(contentsOf: bytes)
            remaining -= count
        }
        return digests
    }

    /// A stable UUID-shaped id for a variant of this version.
    private func publicId(for device: String) -> String {
        let hash = Array(SHA256.hash(data: Data("\(appleItemId)/\(appleVersionId)/\(device)".utf8)))
        let hex = Digest.hex(hash.prefix(16))
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

/// A small, fast, reproducible pseudo-random generator (not for secrets).
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
