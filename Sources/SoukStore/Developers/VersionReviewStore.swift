import Foundation
import SQLKit
import SoukCore

/// What the manifest of one version says, as a reviewer compares it with the version before
/// (`app_versions` with its app, its organisation and the size of its package).
public struct VersionFacts: Sendable, Equatable {
    public var appleItemId: UInt64
    public var appName: String
    public var appleVersionId: UInt64
    public var bundleVersion: String
    public var shortVersionString: String
    public var platforms: [String]
    /// Minimum OS per platform, e.g. `["ios": "17.4"]`.
    public var minimumOS: [String: String]
    public var capabilities: [String]
    /// Bytes of every file of the version's package.
    public var size: Int64
    /// The organisation that owns the app; nil for the marketplace's own apps.
    public var developerID: String?
    public var developerName: String?
    public var reviewState: VersionReviewState
    public var reviewReason: String?
    public var releaseDate: Date
    public var uploadedAt: Date?

    /// The facts as `name: value` lines, in a fixed order, for a line diff of two versions.
    public var lines: [String] {
        [
            "bundle version: \(bundleVersion)",
            "short version: \(shortVersionString)",
            "platforms: \(platforms.sorted().joined(separator: ", "))",
        ] + minimumOS.sorted { $0.key < $1.key }.map { "minimum \($0.key): \($0.value)" } + [
            "capabilities: \(capabilities.isEmpty ? "none" : capabilities.sorted().joined(separator: ", "))",
            "size: \(size) bytes",
            "organisation: \(developerName.map { "\($0) (\(developerID ?? ""))" } ?? "the marketplace")",
        ]
    }
}

/// The review of versions before release (docs/developers.md, "Review"): the queue, a version's
/// facts beside the previous release's, and the decision, made once by a conditional update.
/// A changed `review_state` goes through the catalog change log like every `app_versions` change,
/// so every process's indexes offer an approved version within a refresh.
public struct VersionReviewStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    private static let select = """
        SELECT a.apple_item_id AS apple_item_id, a.name AS app_name, v.apple_version_id AS apple_version_id,
        v.bundle_version AS bundle_version, v.short_version_string AS short_version_string, v.platforms AS platforms,
        v.minimum_os AS minimum_os, v.required_capabilities AS required_capabilities, v.review_state AS review_state,
        v.review_reason AS review_reason, v.release_date AS release_date, v.created_at AS created_at,
        a.developer_id AS developer_id, d.name AS developer_name,
        (SELECT CAST(COALESCE(SUM(f.size), 0) AS BIGINT) FROM package_files f WHERE f.version_id = v.id) AS size
        FROM app_versions v JOIN apps a ON a.id = v.app_id LEFT JOIN developers d ON d.id = a.developer_id
        """

    /// The versions waiting in review, the longest-waiting first.
    public func queue() async throws -> [VersionFacts] {
        try await database.sql.raw("""
            \(unsafeRaw: Self.select) WHERE v.review_state = \(bind: VersionReviewState.inReview.rawValue)
            ORDER BY v.created_at, v.apple_version_id
            """).all().map(Self.facts)
    }

    /// One version of one app, in whatever review state.
    public func facts(appleItemId: UInt64, appleVersionId: UInt64) async throws -> VersionFacts? {
        try await database.sql.raw("""
            \(unsafeRaw: Self.select) WHERE a.apple_item_id = \(bind: AppleIDColumn.store(appleItemId))
            AND v.apple_version_id = \(bind: AppleIDColumn.store(appleVersionId))
            """).first().map(Self.facts)
    }

    /// The version devices are offered now in place of `appleVersionId`: the newest released,
    /// not withdrawn version of the app other than it (nil for an app's first version).
    public func previousRelease(appleItemId: UInt64, appleVersionId: UInt64) async throws -> VersionFacts? {
        try await database.sql.raw("""
            \(unsafeRaw: Self.select) WHERE a.apple_item_id = \(bind: AppleIDColumn.store(appleItemId))
            AND v.apple_version_id <> \(bind: AppleIDColumn.store(appleVersionId))
            AND v.review_state = \(bind: VersionReviewState.released.rawValue) AND v.withdrawn_at IS NULL
            ORDER BY v.release_date DESC, v.apple_version_id DESC LIMIT 1
            """).first().map(Self.facts)
    }

    /// Moves a version from `in_review` to `decision` (`released` or `rejected`, with the reason
    /// shown to the developer) in one conditional statement: of two reviewers deciding at once,
    /// one does, and the other is told it was decided. False when the version was not in review.
    public func decide(appleItemId: UInt64, appleVersionId: UInt64, to decision: VersionReviewState, reason: String?,
                       by reviewer: String) async throws -> Bool {
        precondition(decision != .inReview, "a review decides for released or rejected")
        return try await database.sql.raw("""
            UPDATE app_versions SET review_state = \(bind: decision.rawValue), review_reason = \(bind: reason),
            reviewed_at = \(bind: now()), reviewed_by = \(bind: reviewer)
            WHERE apple_version_id = \(bind: AppleIDColumn.store(appleVersionId))
            AND app_id = (SELECT id FROM apps WHERE apple_item_id = \(bind: AppleIDColumn.store(appleItemId)))
            AND review_state = \(bind: VersionReviewState.inReview.rawValue)
            RETURNING apple_version_id
            """).first() != nil
    }

    static func facts(_ row: any SQLRow) throws -> VersionFacts {
        VersionFacts(
            appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
            appName: try row.decode(column: "app_name", as: String.self),
            appleVersionId: AppleIDColumn.load(try row.decode(column: "apple_version_id", as: Int64.self)),
            bundleVersion: try row.decode(column: "bundle_version", as: String.self),
            shortVersionString: try row.decode(column: "short_version_string", as: String.self),
            platforms: try row.decode(column: "platforms", as: [String].self),
            minimumOS: try row.decode(column: "minimum_os", as: [String: String].self),
            capabilities: try row.decode(column: "required_capabilities", as: [String].self),
            size: try row.decode(column: "size", as: Int64.self),
            developerID: try row.decode(column: "developer_id", as: String?.self),
            developerName: try row.decode(column: "developer_name", as: String?.self),
            reviewState: VersionReviewState(rawValue: try row.decode(column: "review_state", as: String.self)) ?? .inReview,
            reviewReason: try row.decode(column: "review_reason", as: String?.self),
            releaseDate: try row.decode(column: "release_date", as: Date.self),
            uploadedAt: try row.decode(column: "created_at", as: Date?.self))
    }
}
