import Foundation
import SQLKit
import SoukCore

/// The console's catalog reviews (`catalog_reviews`): each review keeps the digest of the catalog
/// text the operator saw the diff of (`CatalogFile.reviewDigest`) and the revision it was computed
/// against, so the apply step applies that text and nothing else. A review is the reviewer's own,
/// is taken once (applied or refused, a new one is needed), and lapses after `lifetime`.
public struct CatalogReviewStore: Sendable {
    public struct Review: Sendable, Equatable {
        public var id: UUID
        public var app: String
        public var accountID: UUID
        public var revision: Int
        public var digest: String
        public var createdAt: Date
    }

    let database: SoukDatabase
    let now: @Sendable () -> Date
    public static var lifetime: TimeInterval { 86_400 }

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// Keeps a review of `digest` (the text reviewed) against `revision`; returns its id. Reviews
    /// that lapsed are removed on the way.
    public func keep(app: String, accountID: UUID, revision: Int, digest: String) async throws -> UUID {
        let id = UUID(), instant = now()
        try await database.sql.delete(from: "catalog_reviews")
            .where("created_at", .lessThan, SQLBind(instant.addingTimeInterval(-Self.lifetime))).run()
        try await database.sql.insert(into: "catalog_reviews").columns("id", "app", "account_id", "revision", "digest", "created_at")
            .values(SQLBind(id), SQLBind(app), SQLBind(accountID), SQLBind(Int64(revision)), SQLBind(digest), SQLBind(instant))
            .run()
        return id
    }

    /// Takes the review `id` of `app` made by `accountID`: removes it and returns it, or nil when
    /// there is none (unknown, another's, already taken, or lapsed). Of two applies of one review,
    /// one takes it.
    public func take(_ id: UUID, app: String, accountID: UUID) async throws -> Review? {
        let rows = try await database.sql.delete(from: "catalog_reviews").where("id", .equal, SQLBind(id))
            .where("app", .equal, SQLBind(app)).where("account_id", .equal, SQLBind(accountID))
            .returning("id", "app", "account_id", "revision", "digest", "created_at").all()
        guard let row = rows.first else { return nil }
        let review = Review(id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
                            accountID: try row.decode(column: "account_id", as: UUID.self),
                            revision: Int(try row.decode(column: "revision", as: Int64.self)),
                            digest: try row.decode(column: "digest", as: String.self),
                            createdAt: try row.decode(column: "created_at", as: Date.self))
        return now().timeIntervalSince(review.createdAt) < Self.lifetime ? review : nil
    }
}
