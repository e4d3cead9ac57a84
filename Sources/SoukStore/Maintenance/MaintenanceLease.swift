import Foundation
import SQLKit

/// Which process runs a background job now (`maintenance_leases`): a process claims a job's lease
/// for a while and renews it; another process can take it over only once it ran out. So with several
/// processes on one PostgreSQL each sweep runs once, and a crashed holder delays it by one lease at most.
public struct MaintenanceLease: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// Claims (or renews) the lease on `job` for `holder` for `duration`; true when `holder` holds it
    /// now. One statement: concurrent claims of a free lease leave exactly one holder.
    public func claim(_ job: String, holder: String, for duration: TimeInterval) async throws -> Bool {
        let at = now()
        let row = try await database.sql.raw("""
            INSERT INTO maintenance_leases (name, holder, lease_until) VALUES (\(bind: job), \(bind: holder), \(bind: at + duration))
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
            WHERE maintenance_leases.lease_until < \(bind: at) OR maintenance_leases.holder = excluded.holder
            RETURNING holder
            """).first()
        return try row?.decode(column: "holder", as: String.self) == holder
    }

    /// Gives the lease up early (a one-off command that finished).
    public func release(_ job: String, holder: String) async throws {
        try await database.sql.raw("DELETE FROM maintenance_leases WHERE name = \(bind: job) AND holder = \(bind: holder)").run()
    }
}
