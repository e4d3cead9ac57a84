import Foundation
import SQLKit
import SoukCore

/// The rollup's cohort table (`metric_cohorts`, docs/metrics.md "Cohorts in the rollup").
extension MetricRollupStore {
    /// Replaces every cohort cell of `app` (both environments) with `cohorts`, inside the
    /// transaction that replaces its days.
    static func replaceCohorts(app: String, with cohorts: [MetricCohortRow], on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM metric_cohorts WHERE app = \(bind: app)").run()
        for batch in stride(from: 0, to: cohorts.count, by: 200).map({ Array(cohorts[$0..<min($0 + 200, cohorts.count)]) }) {
            var insert = sql.insert(into: "metric_cohorts").columns("app", "environment", "cohort", "k", "accounts", "active")
            for row in batch {
                insert = insert.values(SQLBind(row.app), SQLBind(Self.environment(row.sandbox)), SQLBind(row.cell.cohort.description),
                                       SQLBind(row.cell.month), SQLBind(row.cell.accounts), SQLBind(row.cell.active))
            }
            try await insert.run()
        }
    }

    /// The cells of the cohorts `from` through `to` of one app and environment, each month after a
    /// cohort up to `to` that the rollup has (cohort by cohort, months since in order).
    public func cohorts(app: String, sandbox: Bool, from: StatementMonth, to: StatementMonth) async throws -> [CohortCell] {
        let rows = try await database.sql.select()
            .columns("cohort", "k", "accounts", "active")
            .from("metric_cohorts")
            .where("app", .equal, app).where("environment", .equal, Self.environment(sandbox))
            .where("cohort", .greaterThanOrEqual, from.description).where("cohort", .lessThanOrEqual, to.description)
            .orderBy("cohort").orderBy("k")
            .all()
        return try rows.compactMap { row in
            guard let cohort = StatementMonth(try row.decode(column: "cohort", as: String.self)) else { return nil }
            let cell = CohortCell(cohort: cohort, month: try row.decode(column: "k", as: Int.self),
                                  accounts: try row.decode(column: "accounts", as: Int.self), active: try row.decode(column: "active", as: Int.self))
            return cell.countedMonth <= to ? cell : nil
        }
    }

    static func environment(_ sandbox: Bool) -> String {
        sandbox ? CommerceEnvironment.sandbox.rawValue : CommerceEnvironment.production.rawValue
    }
}
