import Foundation

extension PackageManifest {
    /// Parses and validates `manifest.json`, naming the first field at fault.
    ///
    /// Required: `appleItemId`, `appleVersionId` (digits, as strings or numbers), `bundleId`,
    /// `shortVersionString`, `bundleVersion`, `platforms` (non-empty), `variants` (non-empty, each with
    /// `publicId`, `assetPath`, `installTargets`). Optional but type-checked when present:
    /// `minimumSystemVersions`, `requiredDeviceCapabilities`, `variantDetails`, `deltas`.
    public static func parse(_ data: Data) -> Result<PackageManifest, PackageError> {
        do {
            return .success(try parseThrowing(data))
        } catch let error as PackageError {
            return .failure(error)
        } catch {
            return .failure(PackageError(PackagePath.manifest, "unreadable: \(error)"))
        }
    }

    private static func parseThrowing(_ data: Data) throws -> PackageManifest {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw PackageError(PackagePath.manifest, "is not valid JSON")
        }
        guard let object = root as? [String: Any] else {
            throw PackageError(PackagePath.manifest, "must be a JSON object")
        }
        let fields = Fields(object, path: "")
        let platforms = try fields.array("platforms").enumerated().map { index, value -> Platform in
            guard let text = value as? String, let platform = Platform(rawValue: text) else {
                throw PackageError("platforms[\(index)]", "must be a platform name such as \"ios\"")
            }
            return platform
        }
        guard !platforms.isEmpty else { throw PackageError("platforms", "must name at least one platform") }

        var minimums: [Platform: OSVersion] = [:]
        if let versions = try fields.optionalObject("minimumSystemVersions") {
            for (key, value) in versions {
                guard let platform = Platform(rawValue: key) else {
                    throw PackageError("minimumSystemVersions.\(key)", "is not a platform name")
                }
                guard let text = value as? String, let version = OSVersion(text) else {
                    throw PackageError("minimumSystemVersions.\(key)", "must be a version string such as \"17.4\"")
                }
                minimums[platform] = version
            }
        }
        let capabilities = try (fields.optionalArray("requiredDeviceCapabilities") ?? []).enumerated().map { index, value in
            guard let text = value as? String else {
                throw PackageError("requiredDeviceCapabilities[\(index)]", "must be a string")
            }
            return text
        }
        let variants = try fields.array("variants").enumerated().map { index, value in
            try parseAsset(value, kind: .variant, path: "variants[\(index)]")
        }
        guard !variants.isEmpty else { throw PackageError("variants", "must list at least one variant") }
        let deltas = try (fields.optionalArray("deltas") ?? []).enumerated().map { index, value in
            try parseAsset(value, kind: .delta, path: "deltas[\(index)]")
        }
        let manifest = PackageManifest(
            appleItemId: try fields.appleID("appleItemId"),
            appleVersionId: try fields.appleID("appleVersionId"),
            bundleId: try fields.nonEmptyString("bundleId"),
            shortVersionString: try fields.nonEmptyString("shortVersionString"),
            bundleVersion: try fields.nonEmptyString("bundleVersion"),
            platforms: platforms,
            minimumSystemVersions: minimums,
            requiredDeviceCapabilities: capabilities,
            variants: variants,
            deltas: deltas
        )
        try manifest.checkAssetsAreDistinct()
        return manifest
    }

    private static func parseAsset(_ value: Any, kind: Asset.Kind, path: String) throws -> Asset {
        guard let object = value as? [String: Any] else { throw PackageError(path, "must be an object") }
        let fields = Fields(object, path: path + ".")
        let publicId = try fields.nonEmptyString("publicId")
        let assetPath = try fields.nonEmptyString("assetPath")
        guard PackagePath.isSafeRelative(assetPath), assetPath != PackagePath.manifest, assetPath != PackagePath.signature else {
            throw PackageError(path + ".assetPath", "must be a relative path inside the package (no '..', '/', '\\' or '%')")
        }
        var targets: [InstallTarget] = []
        if kind == .variant {
            targets = try fields.array("installTargets").enumerated().map { index, value in
                let targetPath = "\(path).installTargets[\(index)]"
                guard let object = value as? [String: Any] else { throw PackageError(targetPath, "must be an object") }
                let target = Fields(object, path: targetPath + ".")
                return InstallTarget(device: try target.nonEmptyString("device"), os: try target.nonEmptyString("os"))
            }
            guard !targets.isEmpty else { throw PackageError(path + ".installTargets", "must list at least one target") }
        }
        let detailsKey = kind == .variant ? "variantDetails" : "deltaDetails"
        var size: Int64?
        var digests: ChunkDigests?
        if let details = try fields.optionalObject(detailsKey) {
            let detailFields = Fields(details, path: "\(path).\(detailsKey).")
            size = try detailFields.optionalSize("compressedSize")
            _ = try detailFields.optionalSize("uncompressedSize")
            digests = try parseDigests(detailFields)
        }
        return Asset(kind: kind, publicId: publicId, assetPath: assetPath, installTargets: targets,
                     expectedSize: size, chunkDigests: digests)
    }

    private static func parseDigests(_ details: Fields) throws -> ChunkDigests? {
        guard let hashes = try details.optionalArray("hashes") else { return nil }
        var found: ChunkDigests?
        for (index, value) in hashes.enumerated() {
            let entryPath = "\(details.path)hashes[\(index)]"
            guard let object = value as? [String: Any] else { throw PackageError(entryPath, "must be an object") }
            let entry = Fields(object, path: entryPath + ".")
            guard try entry.nonEmptyString("algorithm").lowercased() == "sha256" else { continue }
            guard let chunkSize = try entry.optionalSize("chunkSize"), chunkSize > 0, chunkSize <= Int64(Int32.max) else {
                throw PackageError(entryPath + ".chunkSize", "must be a positive integer")
            }
            guard let list = try entry.optionalArray("encryptedChunkDigests") else { continue }
            let digests = try list.enumerated().map { digestIndex, value in
                guard let text = value as? String, let bytes = Digest.decodeSHA256(text) else {
                    throw PackageError("\(entryPath).encryptedChunkDigests[\(digestIndex)]",
                                       "must be a SHA-256 digest in hex or base64")
                }
                return bytes
            }
            found = ChunkDigests(chunkSize: Int(chunkSize), digests: digests)
        }
        return found
    }

    private func checkAssetsAreDistinct() throws {
        var paths = Set<String>()
        var ids = Set<String>()
        for (index, asset) in assets.enumerated() {
            let name = asset.kind == .variant ? "variants[\(index)]" : "deltas[\(index - variants.count)]"
            guard paths.insert(asset.assetPath).inserted else {
                throw PackageError(name + ".assetPath", "\(asset.assetPath) is named twice")
            }
            guard ids.insert(asset.publicId).inserted else {
                throw PackageError(name + ".publicId", "\(asset.publicId) is used twice")
            }
        }
    }
}

/// Typed access to one JSON object's fields, with errors that name the field.
private struct Fields {
    let object: [String: Any]
    let path: String

    init(_ object: [String: Any], path: String) {
        self.object = object
        self.path = path
    }

    func nonEmptyString(_ key: String) throws -> String {
        guard let value = object[key] else { throw PackageError(path + key, "is required") }
        guard let text = value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw PackageError(path + key, "must be a non-empty string")
        }
        return text
    }

    func appleID(_ key: String) throws -> UInt64 {
        guard let value = object[key] else { throw PackageError(path + key, "is required") }
        guard let id = AppleID.from(json: value), !(value is Bool) else {
            throw PackageError(path + key, "must be a decimal identifier (string of digits or number)")
        }
        return id
    }

    func array(_ key: String) throws -> [Any] {
        guard let value = object[key] else { throw PackageError(path + key, "is required") }
        guard let array = value as? [Any] else { throw PackageError(path + key, "must be an array") }
        return array
    }

    func optionalArray(_ key: String) throws -> [Any]? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let array = value as? [Any] else { throw PackageError(path + key, "must be an array") }
        return array
    }

    func optionalObject(_ key: String) throws -> [String: Any]? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let dictionary = value as? [String: Any] else { throw PackageError(path + key, "must be an object") }
        return dictionary
    }

    func optionalSize(_ key: String) throws -> Int64? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        // JSONSerialization gives NSNumber; booleans are NSNumbers too, so reject them explicitly.
        guard !(value is Bool), let number = value as? NSNumber,
              number.doubleValue >= 0, number.doubleValue.rounded() == number.doubleValue,
              number.doubleValue < 9.0e18 else {
            throw PackageError(path + key, "must be a non-negative integer")
        }
        return number.int64Value
    }
}
