/// What Souk reads from an alternative distribution package's `manifest.json`.
///
/// Only the fields Souk acts on are typed here; the manifest itself is stored and served byte for byte.
public struct PackageManifest: Sendable, Equatable {
    public var appleItemId: UInt64
    public var appleVersionId: UInt64
    public var bundleId: String
    public var shortVersionString: String
    public var bundleVersion: String
    public var platforms: [Platform]
    /// Minimum OS per platform; a platform without an entry has no minimum.
    public var minimumSystemVersions: [Platform: OSVersion]
    public var requiredDeviceCapabilities: [String]
    public var variants: [Asset]
    public var deltas: [Asset]

    public init(appleItemId: UInt64, appleVersionId: UInt64, bundleId: String, shortVersionString: String, bundleVersion: String,
                platforms: [Platform], minimumSystemVersions: [Platform: OSVersion], requiredDeviceCapabilities: [String],
                variants: [Asset], deltas: [Asset]) {
        self.appleItemId = appleItemId
        self.appleVersionId = appleVersionId
        self.bundleId = bundleId
        self.shortVersionString = shortVersionString
        self.bundleVersion = bundleVersion
        self.platforms = platforms
        self.minimumSystemVersions = minimumSystemVersions
        self.requiredDeviceCapabilities = requiredDeviceCapabilities
        self.variants = variants
        self.deltas = deltas
    }

    /// Every file the manifest names, variants first.
    public var assets: [Asset] { variants + deltas }

    /// A variant or delta file of the package.
    public struct Asset: Sendable, Equatable {
        public enum Kind: String, Sendable { case variant, delta }
        public var kind: Kind
        public var publicId: String
        /// Relative path inside the package, e.g. `variant/<publicId>.ipa`.
        public var assetPath: String
        public var installTargets: [InstallTarget]
        /// `compressedSize`: the size of the file as stored, when the manifest gives it.
        public var expectedSize: Int64?
        /// SHA-256 digests of the stored file's chunks, when the manifest gives them.
        public var chunkDigests: ChunkDigests?

        public init(kind: Kind, publicId: String, assetPath: String, installTargets: [InstallTarget],
                    expectedSize: Int64?, chunkDigests: ChunkDigests?) {
            self.kind = kind
            self.publicId = publicId
            self.assetPath = assetPath
            self.installTargets = installTargets
            self.expectedSize = expectedSize
            self.chunkDigests = chunkDigests
        }
    }

    /// A device family and OS a variant installs on (`{"device": "iphone", "os": "ios"}`).
    public struct InstallTarget: Sendable, Equatable {
        public var device: String
        public var os: String
        public init(device: String, os: String) {
            self.device = device
            self.os = os
        }
    }

    /// `hashes[]` entry with `algorithm: "sha256"`: one digest per `chunkSize` bytes of the file as stored
    /// (`encryptedChunkDigests`; the unencrypted ones cannot be checked without the app's key).
    public struct ChunkDigests: Sendable, Equatable {
        public var chunkSize: Int
        public var digests: [[UInt8]]
        public init(chunkSize: Int, digests: [[UInt8]]) {
            self.chunkSize = chunkSize
            self.digests = digests
        }
    }
}

/// Why a package was refused, naming the field or file at fault.
public struct PackageError: Error, Equatable, CustomStringConvertible {
    /// The manifest field (`variants[1].assetPath`) or package file (`variant/abc.ipa`) at fault.
    public var location: String
    public var problem: String

    public init(_ location: String, _ problem: String) {
        self.location = location
        self.problem = problem
    }

    public var description: String { "\(location): \(problem)" }
}
