import FluentKit
import Foundation
import SoukCore

/// One version of an app, with the package imported for it (`app_versions`).
public final class AppVersionModel: Model, @unchecked Sendable {
    public static let schema = "app_versions"

    @ID(key: .id) public var id: UUID?
    @Parent(key: "app_id") public var app: AppModel
    @Field(key: "apple_version_id") var appleVersionIdColumn: Int64
    @Field(key: "bundle_version") public var bundleVersion: String
    @Field(key: "short_version_string") public var shortVersionString: String
    /// Lower-case platform names from the manifest, e.g. `["ios"]`.
    @Field(key: "platforms") public var platforms: [String]
    /// Minimum OS per platform, e.g. `{"ios": "17.4"}`.
    @Field(key: "minimum_os") public var minimumOS: [String: String]
    @Field(key: "required_capabilities") public var requiredCapabilities: [String]
    @Field(key: "release_date") public var releaseDate: Date
    /// SHA-256 of the stored `manifest.json`: re-importing the same package is recognised by it.
    @Field(key: "manifest_sha256") public var manifestSHA256: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    /// Set when the version was withdrawn (App Store Connect's `AppVersionsUnavailable`, or
    /// `souk packages withdraw`): no longer offered or served; devices on it get a 404 failure.
    @OptionalField(key: "withdrawn_at") public var withdrawnAt: Date?
    @OptionalField(key: "withdrawn_reason") public var withdrawnReason: String?
    /// `VersionReviewState`: a version a developer uploads waits `in_review` until an operator
    /// releases or rejects it; only released versions are offered (docs/developers.md, "Review").
    @Field(key: "review_state") public var reviewStateRaw: String
    /// Why the version was rejected, as the developer is shown it.
    @OptionalField(key: "review_reason") public var reviewReason: String?
    @OptionalField(key: "reviewed_at") public var reviewedAt: Date?
    /// The audit name of who approved or rejected it.
    @OptionalField(key: "reviewed_by") public var reviewedBy: String?
    @Children(for: \.$version) public var files: [PackageFileModel]

    public init() {}

    /// An unknown stored value (written by a newer Souk) reads as not released.
    public var reviewState: VersionReviewState {
        get { VersionReviewState(rawValue: reviewStateRaw) ?? .inReview }
        set { reviewStateRaw = newValue.rawValue }
    }

    public init(appID: UUID, manifest: PackageManifest, manifestSHA256: String, releaseDate: Date) {
        self.$app.id = appID
        self.reviewStateRaw = VersionReviewState.released.rawValue
        self.appleVersionIdColumn = AppleIDColumn.store(manifest.appleVersionId)
        self.bundleVersion = manifest.bundleVersion
        self.shortVersionString = manifest.shortVersionString
        self.platforms = manifest.platforms.map(\.rawValue)
        self.minimumOS = Dictionary(uniqueKeysWithValues: manifest.minimumSystemVersions.map { ($0.key.rawValue, $0.value.description) })
        self.requiredCapabilities = manifest.requiredDeviceCapabilities
        self.releaseDate = releaseDate
        self.manifestSHA256 = manifestSHA256
    }

    /// A version without a package (synthetic catalogs for benchmarks).
    public init(appID: UUID, appleVersionId: UInt64, bundleVersion: String, shortVersionString: String,
                minimumOS: [Platform: OSVersion], releaseDate: Date) {
        self.$app.id = appID
        self.reviewStateRaw = VersionReviewState.released.rawValue
        self.appleVersionIdColumn = AppleIDColumn.store(appleVersionId)
        self.bundleVersion = bundleVersion
        self.shortVersionString = shortVersionString
        self.platforms = minimumOS.keys.map(\.rawValue).sorted()
        self.minimumOS = Dictionary(uniqueKeysWithValues: minimumOS.map { ($0.key.rawValue, $0.value.description) })
        self.requiredCapabilities = []
        self.releaseDate = releaseDate
        self.manifestSHA256 = ""
    }

    public var appleVersionId: UInt64 { AppleIDColumn.load(appleVersionIdColumn) }

    public static func find(appleVersionId: UInt64, on db: any Database) async throws -> AppVersionModel? {
        try await AppVersionModel.query(on: db).filter(\.$appleVersionIdColumn == AppleIDColumn.store(appleVersionId)).first()
    }
}
