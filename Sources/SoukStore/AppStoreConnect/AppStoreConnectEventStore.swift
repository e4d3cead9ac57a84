import FluentKit
import Foundation
import SQLKit
import SoukCore

/// One App Store Connect notification as received (`asc_events`): a durable work queue whose
/// unique `event_id` makes every event count once, however often it is delivered.
public struct AppStoreConnectEventRecord: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Waiting to be processed (or to be retried at `nextAttemptAt`).
        case pending
        /// Claimed by a worker until `nextAttemptAt` (a lease: a crashed worker's event is retried).
        case processing
        case done
        /// Gave up after `AppStoreConnectEventStore.maxAttempts`; the operator sees `lastError`.
        case failed
    }

    public var id: UUID
    public var eventId: String
    public var type: String
    public var payload: String
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var receivedAt: Date
    public var processedAt: Date?
}

public struct AppStoreConnectEventStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public static let maxAttempts = 8
    /// How long a claimed event is left to its worker before another may take it.
    public static let lease: TimeInterval = 15 * 60

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// Records an event; false when its id was recorded before (a duplicate delivery).
    public func enqueue(eventId: String, type: String, payload: String) async throws -> Bool {
        let time = now()
        do {
            try await database.sql.insert(into: "asc_events")
                .columns("id", "event_id", "type", "payload", "state", "attempts", "next_attempt_at", "received_at")
                .values(SQLBind(UUID()), SQLBind(eventId), SQLBind(type), SQLBind(payload),
                        SQLBind(AppStoreConnectEventRecord.State.pending.rawValue), SQLBind(0), SQLBind(time), SQLBind(time))
                .run()
            return true
        } catch {
            // The unique event id refused it: a duplicate delivery. Anything else is a real failure.
            if try await exists(eventId: eventId) { return false }
            throw error
        }
    }

    private func exists(eventId: String) async throws -> Bool {
        try await database.sql.select().column("id").from("asc_events").where("event_id", .equal, eventId).first() != nil
    }

    /// Claims the oldest event that is due (pending, or processing with an expired lease), or nil.
    /// Two workers never claim the same event: the claim is a conditional update.
    public func claimNext() async throws -> AppStoreConnectEventRecord? {
        let time = now()
        for _ in 0..<5 {
            guard let candidate = try await database.sql.select().columns("id", "attempts").from("asc_events")
                .where("state", .in, [AppStoreConnectEventRecord.State.pending.rawValue, AppStoreConnectEventRecord.State.processing.rawValue])
                .where("next_attempt_at", .lessThanOrEqual, time)
                .orderBy("received_at").limit(1).first() else { return nil }
            let id = try candidate.decode(column: "id", as: UUID.self)
            let attempts = try candidate.decode(column: "attempts", as: Int.self)
            // Claimed only if nobody else changed the row since it was read.
            let claimed = try await database.sql.raw("""
                UPDATE asc_events SET state = \(bind: AppStoreConnectEventRecord.State.processing.rawValue),
                  attempts = \(bind: attempts + 1), next_attempt_at = \(bind: time.addingTimeInterval(Self.lease))
                WHERE id = \(bind: id) AND attempts = \(bind: attempts)
                RETURNING id
                """).first()
            if claimed != nil { return try await record(id: id) }
        }
        return nil
    }

    public func markDone(_ id: UUID) async throws {
        try await database.sql.update("asc_events")
            .set("state", to: AppStoreConnectEventRecord.State.done.rawValue)
            .set("processed_at", to: now()).set("last_error", to: SQLLiteral.null)
            .where("id", .equal, id).run()
    }

    /// Records a failure: retried later with exponential back-off (1, 2, 4 … minutes), or
    /// `failed` after `maxAttempts`.
    public func markFailed(_ id: UUID, attempts: Int, error: String) async throws {
        let giveUp = attempts >= Self.maxAttempts
        let delay = 60 * pow(2, Double(max(0, attempts - 1)))
        try await database.sql.update("asc_events")
            .set("state", to: (giveUp ? AppStoreConnectEventRecord.State.failed : .pending).rawValue)
            .set("next_attempt_at", to: now().addingTimeInterval(delay))
            .set("last_error", to: String(error.prefix(2000)))
            .where("id", .equal, id).run()
    }

    /// Puts a failed event back in the queue (the operator fixed the cause).
    public func retry(eventId: String) async throws {
        try await database.sql.update("asc_events")
            .set("state", to: AppStoreConnectEventRecord.State.pending.rawValue)
            .set("attempts", to: 0).set("next_attempt_at", to: now())
            .where("event_id", .equal, eventId).run()
    }

    public func record(id: UUID) async throws -> AppStoreConnectEventRecord? {
        try await database.sql.select().column("*").from("asc_events").where("id", .equal, id).first().map(Self.decode)
    }

    public func record(eventId: String) async throws -> AppStoreConnectEventRecord? {
        try await database.sql.select().column("*").from("asc_events").where("event_id", .equal, eventId).first().map(Self.decode)
    }

    /// The latest events, newest first.
    public func recent(limit: Int = 50) async throws -> [AppStoreConnectEventRecord] {
        try await database.sql.select().column("*").from("asc_events").orderBy("received_at", .descending).limit(limit).all().map(Self.decode)
    }

    static func decode(_ row: any SQLRow) throws -> AppStoreConnectEventRecord {
        AppStoreConnectEventRecord(
            id: try row.decode(column: "id", as: UUID.self),
            eventId: try row.decode(column: "event_id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            payload: try row.decode(column: "payload", as: String.self),
            state: AppStoreConnectEventRecord.State(rawValue: try row.decode(column: "state", as: String.self)) ?? .failed,
            attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: try row.decode(column: "next_attempt_at", as: Date.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            receivedAt: try row.decode(column: "received_at", as: Date.self),
            processedAt: try row.decode(column: "processed_at", as: Date?.self))
    }

    // MARK: Packages and withdrawals

    /// Remembers which app version a package version brought in.
    public func recordPackage(packageId: String, packageVersionId: String, appleItemId: UInt64, appleVersionId: UInt64) async throws {
        guard try await database.sql.select().column("id").from("asc_packages")
            .where("package_version_id", .equal, packageVersionId).first() == nil else { return }
        try await database.sql.insert(into: "asc_packages")
            .columns("id", "package_id", "package_version_id", "apple_item_id", "apple_version_id", "created_at")
            .values(SQLBind(UUID()), SQLBind(packageId), SQLBind(packageVersionId), SQLBind(AppleIDColumn.store(appleItemId)),
                    SQLBind(AppleIDColumn.store(appleVersionId)), SQLBind(now()))
            .run()
    }

    /// Withdraws the app versions the packages brought in, in one statement whatever their
    /// number; returns `(appleItemId, appleVersionId)` of each package found.
    @discardableResult
    public func withdraw(packageIds: [String]) async throws -> [(UInt64, UInt64)] {
        guard !packageIds.isEmpty else { return [] }
        let rows = try await database.sql.select().columns("apple_item_id", "apple_version_id").from("asc_packages")
            .where("package_id", .in, packageIds).all()
        guard !rows.isEmpty else { return [] }
        try await database.sql.raw("""
            UPDATE app_versions SET withdrawn_at = \(bind: now())
            WHERE withdrawn_at IS NULL AND id IN (
              SELECT v.id FROM app_versions v
              JOIN apps a ON a.id = v.app_id
              JOIN asc_packages p ON p.apple_item_id = a.apple_item_id AND p.apple_version_id = v.apple_version_id
              WHERE p.package_id IN (\(binds: packageIds)))
            """).run()
        return try rows.map { row in
            (AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
             AppleIDColumn.load(try row.decode(column: "apple_version_id", as: Int64.self)))
        }
    }
}
