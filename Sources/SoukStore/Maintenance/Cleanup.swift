import Foundation
import SQLKit

/// Removes rows that can no longer matter, in bounded batches so that no statement holds a table
/// for long: expired authorization codes, install grants, tokens and web sessions, forgotten sign-in
/// throttle counters, and licenses expired long enough ago that no renewal or resolution page asks
/// for them, and password reset links and TV sign-in requests (device authorizations) a day after
/// they expired. Revoked tokens that have not expired
/// stay: refresh-token reuse is detected through them.
public struct Cleanup: Sendable {
    /// One kind of row to remove: the table, its key column and when a row is gone.
    struct Sweep: Sendable {
        var name: String
        var table: String
        var key: String
        /// A condition on the row, given the time it is compared with.
        var condition: @Sendable (Date) -> SQLQueryString
    }

    /// How long expired codes, grants and tokens are kept (replays of them are still recognised).
    public static let tokenGrace: TimeInterval = 86_400
    /// How long expired licenses are kept as history (resolution pages, `souk licenses list`).
    public static let licenseHistory: TimeInterval = 30 * 86_400

    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    static let sweeps: [Sweep] = [
        Sweep(name: "authorization codes", table: "oauth_codes", key: "id") { now in
            "expires_at < \(bind: now - tokenGrace)"
        },
        Sweep(name: "install grants", table: "install_grants", key: "id") { now in
            "expires_at < \(bind: now - tokenGrace)"
        },
        Sweep(name: "tokens", table: "oauth_tokens", key: "id") { now in
            "expires_at < \(bind: now - tokenGrace)"
        },
        Sweep(name: "web sessions", table: "web_sessions", key: "id") { now in
            "expires_at < \(bind: now)"
        },
        Sweep(name: "sign-in throttle counters", table: "login_throttle", key: "key") { now in
            "(window_ends_at IS NULL OR window_ends_at < \(bind: now)) AND (next_attempt_at IS NULL OR next_attempt_at < \(bind: now))"
        },
        Sweep(name: "password reset links", table: "password_reset_links", key: "id") { now in
            "expires_at < \(bind: now - tokenGrace)"
        },
        Sweep(name: "device authorizations", table: "device_authorizations", key: "id") { now in
            "expires_at < \(bind: now - tokenGrace)"
        },
        Sweep(name: "licenses", table: "licenses", key: "license_id") { now in
            "expires_at < \(bind: now - licenseHistory)"
        },
    ]

    /// Runs every sweep until nothing is left or `maxBatches` batches of `batchSize` rows were
    /// removed from one table; answers how many rows each sweep removed.
    public func run(batchSize: Int = 1_000, maxBatches: Int = 100) async throws -> [(name: String, removed: Int)] {
        let at = now()
        var report: [(name: String, removed: Int)] = []
        for sweep in Self.sweeps {
            var removed = 0
            for _ in 0..<maxBatches {
                // DELETE … LIMIT is not portable; a keyed sub-select bounds the batch on both databases.
                let rows = try await database.sql.raw("""
                    DELETE FROM \(unsafeRaw: sweep.table) WHERE \(unsafeRaw: sweep.key) IN (
                      SELECT \(unsafeRaw: sweep.key) FROM \(unsafeRaw: sweep.table) WHERE \(sweep.condition(at)) LIMIT \(unsafeRaw: String(batchSize)))
                    RETURNING \(unsafeRaw: sweep.key)
                    """).all()
                removed += rows.count
                if rows.count < batchSize { break }
            }
            report.append((sweep.name, removed))
        }
        return report
    }
}
