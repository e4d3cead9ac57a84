import FluentKit
import Foundation
import SoukCore

/// One version of an app as the operations, the consoles and the commands see it: the facts of
/// `AppVersionModel`, under the same names, as a value.
public struct AppVersionRecord: Sendable, Equatable {
    public var id: UUID
    public var appleVersionId: UInt64
    public var bundleVersion: String
    public var shortVersionString: String
    /// Lower-case platform names from the manifest, e.g. `["ios"]`.
    public var platforms: [String]
    /// Minimum OS per platform, e.g. `{"ios": "17.4"}`.
    public var minimumOS: [String: String]
    public var requiredCapabilities: [String]
    public var releaseDate: Date
    public var createdAt: Date?
    /// Set when the version was withdrawn: no longer offered or served.
    public var withdrawnAt: Date?
    public var withdrawnReason: String?
    public var reviewState: VersionReviewState
    /// Why the version was rejected, as the developer is shown it.
    public var reviewReason: String?
    public var reviewedAt: Date?
    /// The audit name of who approved or rejected it.
    public var reviewedBy: String?

    init(_ model: AppVersionModel) throws {
        id = try model.requireID()
        appleVersionId = model.appleVersionId
        bundleVersion = model.bundleVersion
        shortVersionString = model.shortVersionString
        platforms = model.platforms
        minimumOS = model.minimumOS
        requiredCapabilities = model.requiredCapabilities
        releaseDate = model.releaseDate
        createdAt = model.createdAt
        withdrawnAt = model.withdrawnAt
        withdrawnReason = model.withdrawnReason
        reviewState = model.reviewState
        reviewReason = model.reviewReason
        reviewedAt = model.reviewedAt
        reviewedBy = model.reviewedBy
    }
}

/// One file of a version's package: its path in the package, size and blob.
public struct PackageFileRecord: Sendable, Equatable {
    public var path: String
    public var size: Int64
    public var blobSHA256: String
}

extension CatalogStore {
    /// The versions still offered (released, not withdrawn), newest release first.
    public func versions(of app: AppRecord) async throws -> [AppVersionRecord] {
        try await AppVersionModel.query(on: database.db)
            .filter(\.$app.$id == app.id)
            .filter(\.$withdrawnAt == nil)
            .filter(\.$reviewStateRaw == VersionReviewState.released.rawValue)
            .sort(\.$releaseDate, .descending)
            .all().map(AppVersionRecord.init)
    }

    /// Every version of an app, withdrawn, in review or rejected too, newest release first.
    public func allVersions(of app: AppRecord) async throws -> [AppVersionRecord] {
        try await AppVersionModel.query(on: database.db).filter(\.$app.$id == app.id).sort(\.$releaseDate, .descending).all()
            .map(AppVersionRecord.init)
    }

    /// A version of an app by its AppleVersionID; `CatalogError.notFound` without one.
    public func versionRecord(appleItemId: UInt64, appleVersionId: UInt64) async throws -> AppVersionRecord {
        try AppVersionRecord(try await version(appleItemId: appleItemId, appleVersionId: appleVersionId))
    }

    /// The files of a version's package, by path.
    public func files(of version: AppVersionRecord) async throws -> [PackageFileRecord] {
        try await PackageFileModel.query(on: database.db).filter(\.$version.$id == version.id).sort(\.$path).all()
            .map { PackageFileRecord(path: $0.path, size: $0.size, blobSHA256: $0.blobSHA256) }
    }
}
