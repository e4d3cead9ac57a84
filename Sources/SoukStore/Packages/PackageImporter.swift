import FluentKit
import Foundation
import Logging
import SoukCore

/// Imports an alternative distribution package (a folder or a zip) into the catalog.
///
/// Order of work, so that nothing is ever half-visible: validate the manifest and every file while
/// copying them into the blob store's staging area; only when all of them pass are the blobs renamed
/// into place; the version and its file list then appear in one database transaction. A rejection
/// or a crash before the commit leaves the catalog as it was.
public struct PackageImporter: Sendable {
    let database: SoukDatabase
    let blobs: BlobStore
    let workArea: String
    let now: @Sendable () -> Date

    static let maxManifestBytes = 8 << 20

    public init(database: SoukDatabase, blobs: BlobStore, workArea: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.blobs = blobs
        self.workArea = workArea
        self.now = now
    }

    /// What an import did.
    public enum Outcome: Sendable, Equatable {
        case imported(appleItemId: UInt64, appleVersionId: UInt64, files: Int, bytes: Int64)
        /// The same version with the same manifest was already in the catalog; nothing changed.
        case alreadyImported(appleItemId: UInt64, appleVersionId: UInt64)
    }

    /// Imports the package at `path`. Throws `PackageError` naming the field or file for bad input;
    /// with `expectedAppleItemId` (the console's upload on an app's page) a package of another app
    /// is refused before anything is stored. A new version is stored with `reviewState` (a
    /// developer's upload waits `inReview`), in the same transaction that makes it.
    public func importPackage(at path: String, releaseDate: Date? = nil, expectedAppleItemId: UInt64? = nil,
                              reviewState: VersionReviewState = .released) async throws -> Outcome {
        // Every step that reads or writes package files runs on the thread pool (`blocking`).
        let workArea = self.workArea
        let source = try await blocking {
            try FileManager.default.createDirectory(atPath: workArea, withIntermediateDirectories: true)
            return try PackageSource.open(path, workArea: workArea)
        }
        defer { source.cleanUp() }

        let (manifest, manifestPath, signaturePath, assetPaths) = try await blocking { () throws -> (PackageManifest, String, String, [String]) in
            let manifestPath = try source.regularFile(PackagePath.manifest, field: PackagePath.manifest)
            let manifestSize = (try FileManager.default.attributesOfItem(atPath: manifestPath)[.size] as? NSNumber)?.intValue ?? 0
            guard manifestSize <= Self.maxManifestBytes else {
                throw PackageError(PackagePath.manifest, "is larger than \(Self.maxManifestBytes) bytes")
            }
            let manifest = try PackageManifest.parse(try Data(contentsOf: URL(fileURLWithPath: manifestPath))).get()
            let signaturePath = try source.regularFile(PackagePath.signature, field: PackagePath.signature)
            let assetPaths = try manifest.assets.map { asset in
                try source.regularFile(asset.assetPath, field: asset.kind == .variant ? "variant \(asset.publicId)" : "delta \(asset.publicId)")
            }
            return (manifest, manifestPath, signaturePath, assetPaths)
        }

        if let expectedAppleItemId, manifest.appleItemId != expectedAppleItemId {
            throw PackageError("appleItemId", "is \(manifest.appleItemId), but this is app \(expectedAppleItemId)'s page")
        }
        let db = database.db
        guard let app = try await AppModel.find(appleItemId: manifest.appleItemId, on: db), let appID = app.id else {
            throw PackageError("appleItemId", "no app with AppleItemID \(manifest.appleItemId) in the catalog; create it first (souk apps create)")
        }
        guard app.bundleId == manifest.bundleId else {
            throw PackageError("bundleId", "is \(manifest.bundleId) but app \(manifest.appleItemId) has bundle id \(app.bundleId)")
        }
        let blobs = self.blobs
        let manifestStaged = try await blocking { try blobs.stage(fileAt: manifestPath) }
        if let existing = try await existingVersion(manifest, manifestSHA256: manifestStaged.sha256, appID: appID) {
            blobs.discard(manifestStaged)
            return existing
        }

        let files = try await blocking { () throws -> [(BlobStore.Staged, String, String?)] in
            var staged: [(BlobStore.Staged, String, String?)] = [(manifestStaged, PackagePath.manifest, nil)]
            do {
                staged.append((try blobs.stage(fileAt: signaturePath), PackagePath.signature, nil))
                for (asset, filePath) in zip(manifest.assets, assetPaths) {
                    let blob = try blobs.stage(fileAt: filePath, chunkSize: asset.chunkDigests?.chunkSize)
                    staged.append((blob, asset.assetPath, asset.publicId))
                    try Self.check(blob, against: asset)
                }
            } catch {
                staged.forEach { blobs.discard($0.0) }
                throw error
            }
            for (blob, _, _) in staged { try blobs.commit(blob) }
            return staged
        }

        // With an object store, every file is there before any row names it.
        for (blob, _, _) in files { try await blobs.publish(blob.sha256) }
        let version = AppVersionModel(appID: appID, manifest: manifest, manifestSHA256: manifestStaged.sha256,
                                      releaseDate: releaseDate ?? now())
        version.reviewState = reviewState
        do {
            try await database.transaction { transaction in
                try await version.create(on: transaction)
                let versionID = try version.requireID()
                for (blob, path, publicId) in files {
                    try await PackageFileModel(versionID: versionID, path: path, blobSHA256: blob.sha256, size: blob.size,
                                               contentType: PackagePath.contentType(for: path), publicId: publicId)
                        .create(on: transaction)
                }
            }
        } catch {
            // Another import of the same version may have won the race: that is success, not failure.
            if let existing = try await existingVersion(manifest, manifestSHA256: manifestStaged.sha256, appID: appID) {
                return existing
            }
            throw error
        }
        return .imported(appleItemId: manifest.appleItemId, appleVersionId: manifest.appleVersionId,
                         files: files.count, bytes: files.reduce(0) { $0 + $1.0.size })
    }

    /// The outcome for a version that is already in the catalog, or an error when it differs.
    private func existingVersion(_ manifest: PackageManifest, manifestSHA256: String, appID: UUID) async throws -> Outcome? {
        guard let existing = try await AppVersionModel.find(appleVersionId: manifest.appleVersionId, on: database.db) else {
            return nil
        }
        guard existing.$app.id == appID else {
            throw PackageError("appleVersionId", "\(manifest.appleVersionId) already belongs to another app")
        }
        guard existing.manifestSHA256 == manifestSHA256 else {
            throw PackageError("appleVersionId", "\(manifest.appleVersionId) is already imported with a different manifest; a version never changes, import a new AppleVersionID")
        }
        return .alreadyImported(appleItemId: manifest.appleItemId, appleVersionId: manifest.appleVersionId)
    }

    /// Checks a staged asset against the size and chunk digests its manifest entry gives.
    static func check(_ blob: BlobStore.Staged, against asset: PackageManifest.Asset) throws {
        if let expected = asset.expectedSize, expected != blob.size {
            throw PackageError(asset.assetPath, "is \(blob.size) bytes but the manifest says compressedSize \(expected)")
        }
        if let digests = asset.chunkDigests {
            guard digests.digests.count == blob.chunkDigests.count else {
                throw PackageError(asset.assetPath, "has \(blob.chunkDigests.count) chunks of \(digests.chunkSize) bytes but the manifest lists \(digests.digests.count) digests")
            }
            for (index, (expected, actual)) in zip(digests.digests, blob.chunkDigests).enumerated() where expected != actual {
                throw PackageError(asset.assetPath, "chunk \(index) does not match its SHA-256 digest in the manifest")
            }
        }
    }
}
