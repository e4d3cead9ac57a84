import FluentKit
import Foundation

/// One hosted file of a version's package: its path inside the package and the blob holding it.
public final class PackageFileModel: Model, @unchecked Sendable {
    public static let schema = "package_files"

    @ID(key: .id) public var id: UUID?
    @Parent(key: "version_id") public var version: AppVersionModel
    /// Path inside the package: `manifest.json`, `signature`, `variant/<publicId>.ipa`, `delta/<publicId>.ipa`.
    @Field(key: "path") public var path: String
    @Field(key: "blob_sha256") public var blobSHA256: String
    @Field(key: "size") public var size: Int64
    @Field(key: "content_type") public var contentType: String
    /// The manifest's `publicId` for variants and deltas (`assetPublicId` in license requests).
    @OptionalField(key: "public_id") public var publicId: String?

    public init() {}

    public init(versionID: UUID, path: String, blobSHA256: String, size: Int64, contentType: String, publicId: String?) {
        self.$version.id = versionID
        self.path = path
        self.blobSHA256 = blobSHA256
        self.size = size
        self.contentType = contentType
        self.publicId = publicId
    }
}
