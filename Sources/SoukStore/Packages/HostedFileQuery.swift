import Foundation
import SQLKit
import SoukCore

/// A package file as the download path needs it: one indexed SQL query, only the needed columns.
public struct HostedFile: Sendable, Equatable {
    public var blobSHA256: String
    public var size: Int64
    public var contentType: String
    /// When the version was imported, in whole seconds since 1970 (`Last-Modified`).
    public var lastModified: Int64
}

/// Finds hosted package files. Only apps that are `available` have their packages served, and only
/// their released versions' (not withdrawn, not in review or rejected).
public struct HostedFileQuery: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    public func find(appleItemId: UInt64, appleVersionId: UInt64, path: String) async throws -> HostedFile? {
        let row = try await database.sql.raw("""
            SELECT f.blob_sha256, f.size, f.content_type, v.created_at
            FROM package_files f
            JOIN app_versions v ON v.id = f.version_id
            JOIN apps a ON a.id = v.app_id
            WHERE a.apple_item_id = \(bind: AppleIDColumn.store(appleItemId))
              AND v.apple_version_id = \(bind: AppleIDColumn.store(appleVersionId))
              AND f.path = \(bind: path)
              AND a.availability = \(bind: Availability.available.rawValue)
              AND v.withdrawn_at IS NULL
              AND v.review_state = \(bind: VersionReviewState.released.rawValue)
            """).first()
        guard let row else { return nil }
        let created = try row.decode(column: "created_at", as: Date?.self) ?? Date(timeIntervalSince1970: 0)
        return HostedFile(
            blobSHA256: try row.decode(column: "blob_sha256", as: String.self),
            size: try row.decode(column: "size", as: Int64.self),
            contentType: try row.decode(column: "content_type", as: String.self),
            lastModified: Int64(created.timeIntervalSince1970.rounded(.down))
        )
    }
}
