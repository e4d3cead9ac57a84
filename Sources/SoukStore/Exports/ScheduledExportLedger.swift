import Foundation
import SQLKit
import SoukCore

/// One organisation's app on one UTC day, as the scheduled exports recorded it (`scheduled_exports`).
public struct ScheduledExportDay: Sendable, Equatable {
    public var id: UUID
    public var developerID: String
    public var app: String
    public var day: MetricDay
    public var attempts: Int
    /// Why the last attempt failed (no secrets: the object store's status and error code).
    public var lastError: String?
    public var lastAttemptAt: Date?
    /// When its files were written; nil while due.
    public var writtenAt: Date?
    public var purchases: Int?
    public var events: Int?
}

/// The record of what the scheduled exports wrote (docs/metrics.md, "Exports"): the days due are
/// written down before they are tried, and marked written once their files are in the bucket.
public struct ScheduledExportLedger: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// Every organisation's apps by bundle id: its in-app catalogs and its marketplace apps.
    public func organisationApps() async throws -> [(developerID: String, app: String)] {
        try await database.sql.raw("""
            SELECT developer_id, app FROM commerce_apps WHERE developer_id IS NOT NULL
            UNION SELECT developer_id, bundle_id AS app FROM apps WHERE developer_id IS NOT NULL
            ORDER BY developer_id, app
            """).all().map { (try $0.decode(column: "developer_id", as: String.self), try $0.decode(column: "app", as: String.self)) }
    }

    /// The latest day recorded for the organisation's app (written or due), nil when none.
    public func latestDay(developer: String, app: String) async throws -> MetricDay? {
        try await database.sql.raw("""
            SELECT MAX(day) AS day FROM scheduled_exports WHERE developer_id = \(bind: developer) AND app = \(bind: app)
            """).first()?.decode(column: "day", as: String?.self).flatMap(MetricDay.init)
    }

    /// Records `days` as due for the organisation's app (days recorded already stay as they are).
    public func addDue(developer: String, app: String, days: [MetricDay]) async throws {
        for day in days {
            try await database.sql.raw("""
                INSERT INTO scheduled_exports (id, developer_id, app, day, attempts, created_at)
                VALUES (\(bind: UUID()), \(bind: developer), \(bind: app), \(bind: day.description), 0, \(bind: now()))
                ON CONFLICT (developer_id, app, day) DO NOTHING
                """).run()
        }
    }

    /// The days not written yet, oldest first.
    public func due(through last: MetricDay, limit: Int = 1000) async throws -> [ScheduledExportDay] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM scheduled_exports WHERE written_at IS NULL AND day <= \(bind: last.description)
            ORDER BY day, developer_id, app LIMIT \(literal: limit)
            """).all().map(Self.decode)
    }

    /// Every recorded day, newest first (`souk export scheduled`).
    public func list(limit: Int = 200) async throws -> [ScheduledExportDay] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM scheduled_exports ORDER BY day DESC, developer_id, app LIMIT \(literal: limit)
            """).all().map(Self.decode)
    }

    public func markWritten(_ id: UUID, purchases: Int, events: Int) async throws {
        let at = now()
        try await database.sql.raw("""
            UPDATE scheduled_exports SET written_at = \(bind: at), last_attempt_at = \(bind: at), attempts = attempts + 1,
            purchases = \(bind: purchases), events = \(bind: events), last_error = NULL WHERE id = \(bind: id)
            """).run()
    }

    public func markFailed(_ id: UUID, error: String) async throws {
        try await database.sql.raw("""
            UPDATE scheduled_exports SET last_attempt_at = \(bind: now()), attempts = attempts + 1, last_error = \(bind: String(error.prefix(500)))
            WHERE id = \(bind: id)
            """).run()
    }

    /// Forgets a day not written (the organisation no longer owns anything of the app).
    public func forget(_ id: UUID) async throws {
        try await database.sql.raw("DELETE FROM scheduled_exports WHERE id = \(bind: id) AND written_at IS NULL").run()
    }

    static let columns = "id, developer_id, app, day, attempts, last_error, last_attempt_at, written_at, purchases, events"

    static func decode(_ row: any SQLRow) throws -> ScheduledExportDay {
        let text = try row.decode(column: "day", as: String.self)
        guard let day = MetricDay(text) else { throw PurchaseStoreError("scheduled_exports.day is not a day: \(text)") }
        return ScheduledExportDay(id: try row.decode(column: "id", as: UUID.self), developerID: try row.decode(column: "developer_id", as: String.self),
                                  app: try row.decode(column: "app", as: String.self), day: day,
                                  attempts: try row.decode(column: "attempts", as: Int.self),
                                  lastError: try row.decode(column: "last_error", as: String?.self),
                                  lastAttemptAt: try row.decode(column: "last_attempt_at", as: Date?.self),
                                  writtenAt: try row.decode(column: "written_at", as: Date?.self),
                                  purchases: try row.decode(column: "purchases", as: Int?.self), events: try row.decode(column: "events", as: Int?.self))
    }
}
