import Foundation
import SQLKit

/// Where the reading of one app's Google Play voided purchases stands (`google_voided_positions`).
public struct GoogleVoidedPosition: Sendable, Equatable {
    /// The latest `voidedTimeMillis` read; the next listing starts there (Google's start time is inclusive).
    public var highWaterMillis: Int64?
    /// The next page of a listing not read to its end, and the start time that listing was asked with.
    public var pageToken: String?
    public var pageStartMillis: Int64?

    public init(highWaterMillis: Int64? = nil, pageToken: String? = nil, pageStartMillis: Int64? = nil) {
        self.highWaterMillis = highWaterMillis
        self.pageToken = pageToken
        self.pageStartMillis = pageStartMillis
    }
}

/// Each app's `GoogleVoidedPosition`, written after every page so a restart resumes where the last
/// process stopped.
public struct GoogleVoidedPositionStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    public func position(app: String) async throws -> GoogleVoidedPosition? {
        guard let row = try await database.sql.raw("""
            SELECT high_water_millis, page_token, page_start_millis FROM google_voided_positions WHERE app = \(bind: app)
            """).first() else { return nil }
        return GoogleVoidedPosition(highWaterMillis: try row.decode(column: "high_water_millis", as: Int64?.self),
                                    pageToken: try row.decode(column: "page_token", as: String?.self),
                                    pageStartMillis: try row.decode(column: "page_start_millis", as: Int64?.self))
    }

    public func save(app: String, _ position: GoogleVoidedPosition, at: Date) async throws {
        try await database.sql.raw("""
            INSERT INTO google_voided_positions (app, high_water_millis, page_token, page_start_millis, polled_at)
            VALUES (\(bind: app), \(bind: position.highWaterMillis), \(bind: position.pageToken), \(bind: position.pageStartMillis), \(bind: at))
            ON CONFLICT (app) DO UPDATE SET high_water_millis = excluded.high_water_millis, page_token = excluded.page_token,
            page_start_millis = excluded.page_start_millis, polled_at = excluded.polled_at
            """).run()
    }
}
