import FluentKit
import SQLKit

/// PostgreSQL's autovacuum for `licenses`, tuned for renewal churn (docs/benchmarks.md, "Ten times
/// more"). A renewal moves `expires_at`, which two indexes contain, so no update is HOT: every renewal
/// leaves a dead row version and dead entries in all four indexes. The default trigger (20 % of the
/// table dead) comes after millions of renewals on a large table; 1 % plus 10,000 rows vacuums a
/// 28-million-row table every 290,000 renewals (about two hours at 40 a second), and statistics are
/// refreshed at 2 %. SQLite has no autovacuum of dead rows: nothing changes there.
struct UpdateLicensesSetAutovacuum: AsyncMigration {
    static let settings = "autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, "
        + "autovacuum_analyze_scale_factor = 0.02"

    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        guard sql.dialect.name != "sqlite" else { return }
        try await sql.raw("ALTER TABLE licenses SET (\(unsafeRaw: Self.settings))").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        guard sql.dialect.name != "sqlite" else { return }
        try await sql.raw("""
            ALTER TABLE licenses RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, \
            autovacuum_analyze_scale_factor)
            """).run()
    }
}
