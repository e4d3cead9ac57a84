import Foundation
import SoukCore
import SoukStore

/// What uploading a package did: the version as it now stands, and whether this upload made it.
public struct PackageUpload: Sendable, Equatable {
    public var version: DeveloperVersionSummary
    /// false: the same package was imported before; nothing changed.
    public var imported: Bool
    /// How many files and bytes the import stored (0 when nothing changed).
    public var files = 0
    public var bytes: Int64 = 0
}

extension DeveloperOperations {
    /// Imports a package for one version of an app: the one path of `souk packages import`, both
    /// consoles' uploads and the developer API, through the same importer and checks. With
    /// `appleItemId` the manifest must name this app (and with `appleVersionId` this version),
    /// refused before anything is stored; without it (only the operator side: `souk packages
    /// import`) the manifest names both. A developer's upload waits `in_review` when
    /// `reviewNewVersions` is on, written with the version so it is never offered before review; the
    /// operator's are released at once. The same package again answers the same and changes nothing.
    /// Writes `package.import` (version, files, bytes, review state, and `upload`: the file's name as
    /// the person chose it, when given).
    public func uploadPackage(actor: SoukActor, appleItemId: UInt64?, appleVersionId: UInt64?, at path: String,
                              upload: String? = nil) async throws -> PackageUpload {
        if let appleItemId {
            try await ownership.reach(appleItemId: appleItemId, for: actor, scope: .packagesWrite)
        } else {
            // Only the operator side imports without naming the app first.
            guard actor.isMarketplaceOperator else { throw DeveloperOwnership.noApp }
        }
        let reviewState: VersionReviewState = actor.developerID != nil && reviewNewVersions ? .inReview : .released
        let outcome: PackageImporter.Outcome
        do {
            outcome = try await importer.importPackage(at: path, expectedAppleItemId: appleItemId, expectedAppleVersionId: appleVersionId,
                                                       reviewState: reviewState)
        } catch let error as PackageError {
            // The temporary file's path means nothing to the uploader: it is "the package".
            throw DeveloperOperationError.invalid(field: error.location == path ? "package" : error.location, error.problem)
        }
        let item: UInt64, appleVersionId: UInt64
        switch outcome {
        case .imported(let app, let version, _, _), .alreadyImported(let app, let version): (item, appleVersionId) = (app, version)
        }
        guard let version = try await directory.versions(appleItemId: item, appleVersionId: appleVersionId).first else {
            throw DeveloperOperationError.notFound("No version \(appleVersionId) of app \(item).")
        }
        guard case .imported(_, _, let files, let bytes) = outcome else { return PackageUpload(version: version, imported: false) }
        var after = ["version": String(appleVersionId), "files": String(files), "bytes": String(bytes), "review_state": version.reviewState.rawValue]
        after["upload"] = upload
        try await audit.record(actor: actor.auditName, action: .packageImport, target: "app:\(item)", after: after)
        return PackageUpload(version: version, imported: true, files: files, bytes: bytes)
    }

    /// The organisation's marketplace apps (with version counts) and its in-app catalogs.
    public func apps(actor: SoukActor) async throws -> (apps: [DeveloperAppSummary], catalogs: [String]) {
        try DeveloperOwnership.authorize(actor, nil)
        let developer = try organisation(of: actor)
        return (try await directory.apps(of: developer), try await directory.catalogs(of: developer))
    }

    /// The versions of one of the organisation's apps, newest first, with review state and reason.
    public func versions(actor: SoukActor, appleItemId: UInt64) async throws -> [DeveloperVersionSummary] {
        try await ownership.reach(appleItemId: appleItemId, for: actor)
        return try await directory.versions(appleItemId: appleItemId)
    }
}
