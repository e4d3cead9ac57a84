import Foundation
import SQLKit
import SoukCore

/// A marketplace app as its organisation sees it in the developer API.
public struct DeveloperAppSummary: Sendable, Equatable {
    public var appleItemId: UInt64
    public var bundleId: String
    public var name: String
    /// How many versions were imported, in review and rejected ones included.
    public var versions: Int
}

/// One version of an organisation's app, with where it stands in review.
public struct DeveloperVersionSummary: Sendable, Equatable {
    public var appleItemId: UInt64
    public var appleVersionId: UInt64
    public var shortVersionString: String
    public var bundleVersion: String
    public var reviewState: VersionReviewState
    /// Why it was rejected, as the operator wrote it for the developer.
    public var reviewReason: String?
    public var reviewedAt: Date?
    public var withdrawn: Bool
    public var releaseDate: Date
}

extension DeveloperDirectory {
    /// An organisation's marketplace apps with their version counts, by AppleItemID.
    public func apps(of id: String) async throws -> [DeveloperAppSummary] {
        try await database.sql.raw("""
            SELECT a.apple_item_id, a.bundle_id, a.name, COUNT(v.id) AS versions
            FROM apps a LEFT JOIN app_versions v ON v.app_id = a.id
            WHERE a.developer_id = \(bind: id) GROUP BY a.apple_item_id, a.bundle_id, a.name ORDER BY a.apple_item_id
            """).all().map { row in
                DeveloperAppSummary(appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
                                    bundleId: try row.decode(column: "bundle_id", as: String.self),
                                    name: try row.decode(column: "name", as: String.self),
                                    versions: try row.decode(column: "versions", as: Int.self))
            }
    }

    /// The versions of one app (of any organisation: the caller checked whose it is), newest import first.
    public func versions(appleItemId: UInt64, appleVersionId: UInt64? = nil) async throws -> [DeveloperVersionSummary] {
        let versionFilter: SQLQueryString = appleVersionId.map { "AND v.apple_version_id = \(bind: AppleIDColumn.store($0))" } ?? ""
        return try await database.sql.raw("""
            SELECT a.apple_item_id, v.apple_version_id, v.short_version_string, v.bundle_version, v.review_state, v.review_reason,
                   v.reviewed_at, v.withdrawn_at, v.release_date
            FROM app_versions v JOIN apps a ON a.id = v.app_id
            WHERE a.apple_item_id = \(bind: AppleIDColumn.store(appleItemId)) \(versionFilter)
            ORDER BY v.created_at DESC, v.apple_version_id DESC
            """).all().map { row in
                DeveloperVersionSummary(
                    appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
                    appleVersionId: AppleIDColumn.load(try row.decode(column: "apple_version_id", as: Int64.self)),
                    shortVersionString: try row.decode(column: "short_version_string", as: String.self),
                    bundleVersion: try row.decode(column: "bundle_version", as: String.self),
                    // An unknown stored value (a newer Souk's) reads as not released.
                    reviewState: VersionReviewState(rawValue: try row.decode(column: "review_state", as: String.self)) ?? .inReview,
                    reviewReason: try row.decode(column: "review_reason", as: String?.self),
                    reviewedAt: try row.decode(column: "reviewed_at", as: Date?.self),
                    withdrawn: try row.decode(column: "withdrawn_at", as: Date?.self) != nil,
                    releaseDate: try row.decode(column: "release_date", as: Date.self))
            }
    }

    /// The bundle ids of an organisation's marketplace apps: the in-app catalogs it may create.
    public func bundleIds(of id: String) async throws -> Set<String> {
        Set(try await database.sql.raw("SELECT bundle_id FROM apps WHERE developer_id = \(bind: id)").all()
            .map { try $0.decode(column: "bundle_id", as: String.self) })
    }

    /// Gives a catalog nobody owns to an organisation (the catalog it just created); false when it
    /// has an owner already or does not exist.
    public func claimCatalog(app: String, developer id: String) async throws -> Bool {
        try await database.sql.raw("""
            UPDATE commerce_apps SET developer_id = \(bind: id) WHERE app = \(bind: app) AND developer_id IS NULL RETURNING id
            """).first() != nil
    }

    /// Whether the marketplace has an app with this AppleItemID.
    public func appExists(appleItemId: UInt64) async throws -> Bool {
        try await database.sql.raw("SELECT id FROM apps WHERE apple_item_id = \(bind: AppleIDColumn.store(appleItemId))").first() != nil
    }
}
