import Foundation
import SoukCore
import SoukStore

/// What uploading a package did: the version as it now stands, and whether this upload made it.
public struct PackageUpload: Sendable, Equatable {
    public var version: DeveloperVersionSummary
    /// false: the same package was imported before; nothing changed.
    public var imported: Bool
}

extension DeveloperOperations {
    /// Imports a package for one version of an app, through the same importer (and the same checks)
    /// as `souk packages import` and the operator's console. The manifest must name this app and
    /// version. A developer's upload waits `in_review` when `reviewNewVersions` is on, written with
    /// the version so it is never offered before review; the operator's are released at once. The
    /// same package again answers the same and changes nothing.
    /// Without `appleVersionId` (the console's upload on an app's page) the manifest names the version.
    public func uploadPackage(actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64?, at path: String) async throws -> PackageUpload {
        try await ownership.reach(appleItemId: appleItemId, for: actor, scope: .packagesWrite)
        let reviewState: VersionReviewState = actor.developerID != nil && reviewNewVersions ? .inReview : .released
        let outcome: PackageImporter.Outcome
        do {
            outcome = try await importer.importPackage(at: path, expectedAppleItemId: appleItemId, expectedAppleVersionId: appleVersionId,
                                                       reviewState: reviewState)
        } catch let error as PackageError {
            // The temporary file's path means nothing to the uploader: it is "the package".
            throw DeveloperOperationError.invalid(field: error.location == path ? "package" : error.location, error.problem)
        }
        let appleVersionId: UInt64
        switch outcome {
        case .imported(_, let version, _, _), .alreadyImported(_, let version): appleVersionId = version
        }
        guard let version = try await directory.versions(appleItemId: appleItemId, appleVersionId: appleVersionId).first else {
            throw DeveloperOperationError.notFound("No version \(appleVersionId) of app \(appleItemId).")
        }
        guard case .imported(_, _, let files, let bytes) = outcome else { return PackageUpload(version: version, imported: false) }
        try await audit.record(actor: actor.auditName, action: .packageImport, target: "app:\(appleItemId)",
                               after: ["version": String(appleVersionId), "files": String(files), "bytes": String(bytes),
                                       "review_state": version.reviewState.rawValue])
        return PackageUpload(version: version, imported: true)
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
