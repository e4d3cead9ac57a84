import FluentKit
import Foundation
import SQLKit
import SoukCore

extension LicenseStore {
    /// What `assetPublicId` is to one version of one app: its variant with a key blob, its variant
    /// without one, or nothing of that version (another version's or another app's asset is never
    /// handed out in this version's license).
    public func asset(_ assetPublicId: String, appleItemId: UInt64, appleVersionId: UInt64) async throws -> LicenseAssetMatch {
        let item = AppleIDColumn.store(appleItemId), version = AppleIDColumn.store(appleVersionId)
        let row = try await database.sql.raw("""
            SELECT (SELECT key_blob FROM package_key_blobs \
                    WHERE apple_item_id = \(bind: item) AND apple_version_id = \(bind: version) AND asset_public_id = \(bind: assetPublicId)) AS key_blob, \
                   (SELECT COUNT(*) FROM package_files f JOIN app_versions v ON v.id = f.version_id JOIN apps a ON a.id = v.app_id \
                    WHERE a.apple_item_id = \(bind: item) AND v.apple_version_id = \(bind: version) AND f.public_id = \(bind: assetPublicId) \
                    AND v.review_state = \(bind: VersionReviewState.released.rawValue)) AS files
            """).first()
        if let blob = try row?.decode(column: "key_blob", as: String?.self) { return .keyBlob(blob) }
        return try (row?.decode(column: "files", as: Int.self) ?? 0) > 0 ? .withoutKeyBlob : .notInVersion
    }

    /// The `alternativeDistributionKeyBlob` of one variant of one app version, if recorded.
    public func keyBlob(appleItemId: UInt64, appleVersionId: UInt64, assetPublicId: String) async throws -> String? {
        if case .keyBlob(let blob) = try await asset(assetPublicId, appleItemId: appleItemId, appleVersionId: appleVersionId) { return blob }
        return nil
    }

    /// Records the key blob of a variant (`souk packages set-key-blob`, App Store Connect imports).
    /// An `assetPublicId` names one variant: recording it again moves it to this app and version.
    public func setKeyBlob(assetPublicId: String, appleItemId: UInt64, appleVersionId: UInt64, keyBlob: String) async throws {
        try await database.sql.delete(from: "package_key_blobs").where("asset_public_id", .equal, assetPublicId).run()
        try await database.sql.insert(into: "package_key_blobs")
            .columns("id", "asset_public_id", "apple_item_id", "apple_version_id", "key_blob")
            .values(SQLBind(UUID()), SQLBind(assetPublicId), SQLBind(AppleIDColumn.store(appleItemId)),
                    SQLBind(AppleIDColumn.store(appleVersionId)), SQLBind(keyBlob))
            .run()
    }
}
