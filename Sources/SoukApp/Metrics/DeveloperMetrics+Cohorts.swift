import Foundation
import SoukCore
import SoukStore

extension DeveloperMetrics {
    /// The cohort table of `app` (production) from the rollup's cohort table, never from the
    /// purchases: the cohorts `from` through `to`, each month after them up to `to`. The same reach
    /// as `series` (`metrics:read`; another organisation's app is not found; every staff member).
    package func cohorts(actor: SoukActor, app: String, from: StatementMonth, to: StatementMonth) async throws -> [CohortCell] {
        try DeveloperOwnership.authorizeReading(actor, .metricsRead)
        try await ownership.reach(catalog: app, for: actor)
        return try await rollups.cohorts(app: app, sandbox: false, from: from, to: to)
    }
}

extension DeveloperMetrics {
    /// The metrics exports with the same reach (the consoles' downloads).
    package var exports: MetricsExports { MetricsExports(ownership: ownership, database: database) }
}
