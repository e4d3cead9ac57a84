import FluentKit
import Foundation
import SQLKit
import SoukCore

extension LicenseStore {
    /// What `issue` did.
    public enum Issue: Sendable, Equatable {
        /// The license: new, or (`reused`) the device's live license for this app and version with
        /// its term started again.
        case issued(LicenseRecord, reused: Bool)
        /// The account already has `deviceLimit` other devices with a live license.
        case deviceLimitReached
    }

    /// Issues the license of one device for one app version (spec §3.1), the one place where
    /// licenses are created.
    ///
    /// - Idempotent while a license is live: a device asking again for the same app, version and
    ///   account gets the same `licenseId` with a new term (issued now, expiring after `duration`),
    ///   not a new row.
    /// - The device limit (`deviceLimit` > 0, with an account) is checked in the statement that
    ///   inserts: a device already holding a live license of the account always gets in; another
    ///   only while fewer than `deviceLimit` devices do. Requests of one account are serialized —
    ///   on PostgreSQL by a transaction-scoped advisory lock, on SQLite because each write statement
    ///   holds the database's write lock from its first read to its commit — so racing devices
    ///   cannot exceed the limit.
    public func issue(accountID: UUID?, appleItemId: UInt64, appleVersionId: UInt64, deviceId: String,
                      duration: TimeInterval, deviceLimit: Int, now: Date = Date()) async throws -> Issue {
        let wanted = Wanted(accountID: accountID, appleItemId: appleItemId, appleVersionId: appleVersionId, deviceId: deviceId,
                            device: try await deviceRow(deviceId),
                            duration: duration, deviceLimit: accountID == nil ? 0 : max(0, deviceLimit), now: now)
        let lockKey = accountID.map { "souk.license.account:\($0.uuidString)" } ?? "souk.license.device:\(deviceId)"
        for _ in 0..<5 {
            let licenseId = UInt64.random(in: 1...UInt64(Int64.max))
            do {
                if let outcome = try await serialized(on: lockKey, { sql in try await Self.attempt(wanted, licenseId: licenseId, on: sql) }) {
                    return outcome
                }
            } catch {
                // A clash of random 63-bit ids: try another one. Anything else is real.
                if try await licenses(ids: [licenseId])[licenseId] == nil { throw error }
            }
        }
        throw CatalogError.invalid("could not issue a license: the license changed under every attempt")
    }

    /// The row of `devices` that names `deviceId`, added the first time the device gets a licence.
    /// Rows are never removed: a device's row outlives its licences, at one short row per device.
    func deviceRow(_ deviceId: String) async throws -> Int64 {
        func find() async throws -> Int64? {
            try await database.sql.raw("SELECT id FROM devices WHERE device_id = \(bind: deviceId)").first()?.decode(column: "id", as: Int64.self)
        }
        if let id = try await find() { return id }
        try await database.sql.raw("INSERT INTO devices (device_id) VALUES (\(bind: deviceId)) ON CONFLICT (device_id) DO NOTHING").run()
        // The device's id is not in the message: errors are logged, and it identifies a device.
        guard let id = try await find() else { throw CatalogError.invalid("the device could not be recorded") }
        return id
    }

    struct Wanted: Sendable {
        var accountID: UUID?
        var appleItemId: UInt64
        var appleVersionId: UInt64
        var deviceId: String
        /// `deviceId`'s row of `devices`.
        var device: Int64
        var duration: TimeInterval
        var deviceLimit: Int
        var now: Date

        var expiresAt: Date { now.addingTimeInterval(duration) }

        /// Licenses of this account (or of no account) that are live now.
        var live: SQLQueryString {
            let account: SQLQueryString = accountID.map { "account_id = \(bind: $0)" } ?? "account_id IS NULL"
            return account + " AND revoked_at IS NULL AND expires_at > \(bind: now)"
        }

        /// The device's live license for this app and version.
        var same: SQLQueryString {
            "device = \(bind: device) AND apple_item_id = \(bind: AppleIDColumn.store(appleItemId)) AND apple_version_id = \(bind: AppleIDColumn.store(appleVersionId)) AND "
                + live
        }

        /// True when the device limit lets this device in: none applies, the device already holds
        /// a live license of the account, or fewer than the limit of devices do.
        var admitted: SQLQueryString {
            guard deviceLimit > 0 else { return "1 = 1" }
            return "(EXISTS (SELECT 1 FROM licenses WHERE device = \(bind: device) AND " + live
                + ") OR (SELECT COUNT(DISTINCT device) FROM licenses WHERE " + live + ") < \(bind: deviceLimit))"
        }
    }

    /// One try: start the live license's term again, else insert a new one if no live one exists
    /// and the limit admits the device. Nil when neither happened and the limit is not the reason
    /// (a concurrent change on SQLite): the caller tries again.
    static func attempt(_ wanted: Wanted, licenseId: UInt64, on sql: any SQLDatabase) async throws -> Issue? {
        if let record = try await refresh(wanted, on: sql) { return .issued(record, reused: true) }
        let account: SQLQueryString = wanted.accountID.map { "\(bind: $0)" } ?? "NULL"
        let inserted = try await sql.raw("""
            INSERT INTO licenses (license_id, account_id, apple_item_id, apple_version_id, device, issued_at, expires_at, renewals) \
            SELECT \(bind: Int64(licenseId)), \(account), \(bind: AppleIDColumn.store(wanted.appleItemId)), \
            \(bind: AppleIDColumn.store(wanted.appleVersionId)), \(bind: wanted.device), \(bind: wanted.now), \(bind: wanted.expiresAt), 0 \
            WHERE NOT EXISTS (SELECT 1 FROM licenses WHERE \(wanted.same)) AND \(wanted.admitted) \
            RETURNING license_id
            """).all()
        if !inserted.isEmpty {
            return .issued(LicenseRecord(licenseId: licenseId, accountID: wanted.accountID, appleItemId: wanted.appleItemId,
                                         appleVersionId: wanted.appleVersionId, deviceId: wanted.deviceId, issuedAt: wanted.now,
                                         expiresAt: wanted.expiresAt, renewals: 0), reused: false)
        }
        // Another request of this device inserted the license in between (SQLite), or the limit refused.
        if let record = try await refresh(wanted, on: sql) { return .issued(record, reused: true) }
        return wanted.deviceLimit > 0 ? .deviceLimitReached : nil
    }

    /// Starts the term of the device's live license for this app and version again.
    static func refresh(_ wanted: Wanted, on sql: any SQLDatabase) async throws -> LicenseRecord? {
        let rows = try await sql.raw("""
            UPDATE licenses SET issued_at = \(bind: wanted.now), expires_at = \(bind: wanted.expiresAt) WHERE \(wanted.same) \
            RETURNING \(unsafeRaw: columns.joined(separator: ", "))
            """).all()
        // Older versions of Souk could leave several; the newest id answers, all get the new term.
        return try rows.map { try decode($0, deviceId: wanted.deviceId) }.max { $0.licenseId < $1.licenseId }
    }

    /// Runs `body` so that calls with the same `key` do not interleave: on PostgreSQL inside a
    /// transaction holding an advisory lock on the key; on SQLite as is, since every statement
    /// `body` runs is atomic and writes are serialized by the database.
    func serialized<T: Sendable>(on key: String, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard database.location.isPostgres else { return try await body(database.sql) }
        return try await database.transaction { db in
            let sql = db as! any SQLDatabase
            try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.advisoryLockClass), hashtext(\(bind: key)))").run()
            return try await body(sql)
        }
    }

    /// The first key of Souk's licensing advisory locks (the second is the hash of the account or device).
    static var advisoryLockClass: Int32 { 0x5C1C }
}
