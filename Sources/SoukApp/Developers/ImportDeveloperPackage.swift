import Foundation
import SoukCore
import SoukStore

/// Imports an uploaded package as a new version of an app the actor reaches, with the checks of
/// `souk packages import`. A developer's version waits in review when `reviewNewVersions` is on
/// (docs/developers.md, "Review"); an operator's is released at once. Writes `package.import`
/// (with the review state) to the audit log. A bad package throws `PackageError`, naming the field.
package struct ImportDeveloperPackage: Sendable {
    package let services: DeveloperServices

    package enum Outcome: Sendable, Equatable {
        case imported(appleVersionId: UInt64, reviewState: VersionReviewState)
        /// The same version with the same manifest was already there: nothing changed.
        case alreadyImported(appleVersionId: UInt64)
    }

    /// The review state a new version of `actor` starts in.
    package func reviewState(for actor: SoukActor) -> VersionReviewState {
        actor.developerID != nil && services.reviewNewVersions ? .inReview : .released
    }

    /// `filename`: what the uploader called the file (for the audit entry; never a path).
    package func callAsFunction(actor: SoukActor, appleItemId: UInt64, packageAt path: String, filename: String) async throws -> Outcome {
        _ = try await services.ownership.app(appleItemId, for: actor, changing: .packagesWrite)
        let state = reviewState(for: actor)
        switch try await services.importer.importPackage(at: path, expectedAppleItemId: appleItemId, reviewState: state) {
        case .imported(_, let version, let files, let bytes):
            try await services.audit.record(actor: actor.auditName, action: .packageImport, target: "app:\(appleItemId)",
                                            after: ["version": String(version), "files": String(files), "bytes": String(bytes),
                                                    "upload": filename, "review": state.rawValue])
            return .imported(appleVersionId: version, reviewState: state)
        case .alreadyImported(_, let version):
            return .alreadyImported(appleVersionId: version)
        }
    }
}
