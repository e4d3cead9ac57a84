import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Testing

/// The rollup's cohort table (migration 051) on both databases: one row per app, environment,
/// cohort and month since (a second is refused), and the migration reverts and applies again.
@Suite struct MetricCohortMigrationTests {
    @Test(arguments: TestBackend.available)
    func aCellIsUniqueAndTheMigrationRevertsAndAppliesAgain(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let sql = fixture.database.sql
            func insert(_ environment: String) async throws {
                try await sql.raw("""
                    INSERT INTO metric_cohorts (app, environment, cohort, k, accounts, active)
                    VALUES ('org.acme.reader', \(bind: environment), '2026-10', 1, 5, 4)
                    """).run()
            }
            try await insert(CommerceEnvironment.production.rawValue)
            try await insert(CommerceEnvironment.sandbox.rawValue)
            await #expect(throws: (any Error).self) { try await insert(CommerceEnvironment.production.rawValue) }
            let cells = try await MetricRollupStore(database: fixture.database)
                .cohorts(app: "org.acme.reader", sandbox: false, from: StatementMonth("2026-10")!, to: StatementMonth("2026-11")!)
            #expect(cells == [CohortCell(cohort: StatementMonth("2026-10")!, month: 1, accounts: 5, active: 4)])

            let db = fixture.database.db
            try await CreateMetricCohorts().revert(on: db)
            try await CreateMetricCohorts().prepare(on: db)
            #expect(try await MetricRollupStore(database: fixture.database)
                .cohorts(app: "org.acme.reader", sandbox: true, from: StatementMonth("2000-01")!, to: StatementMonth("2030-01")!).isEmpty)
        }
    }
}
