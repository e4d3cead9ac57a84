import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Testing

/// Migration 050 on both databases: `metric_rollups` made anew with `country` keeps the rows it had
/// (as `*`), takes a country's rows beside them, and reverts (keeping the `*` rows) and applies again.
@Suite struct MetricRollupsCountryMigrationTests {
    @Test(arguments: TestBackend.available)
    func theRollupTakesCountriesAndTheMigrationRevertsAndAppliesAgain(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = MetricRollupStore(database: fixture.database)
            let day = MetricDay("2026-11-10")!
            let position = MetricRollupPosition(throughDay: day, changesSeenAt: day.start)
            let rows = [MetricRollupRow(app: "com.example.reader", day: day, metric: .activeSubscriptions, value: 3),
                        MetricRollupRow(app: "com.example.reader", country: "DE", day: day, metric: .activeSubscriptions, value: 1)]
            try await store.replace(app: "com.example.reader", from: day, with: rows, cohorts: [], position: position)
            func stored(_ country: String) async throws -> [Decimal] {
                try await store.rows(app: "com.example.reader", sandbox: false, country: country, from: day, to: day).map(\.value)
            }
            #expect(try await stored("*") == [3])
            #expect(try await stored("DE") == [1])

            let db = fixture.database.db
            try await UpdateMetricRollupsAddCountry().revert(on: db)
            let kept = try await fixture.database.sql.raw("SELECT value FROM metric_rollups").all().map { try $0.decode(column: "value", as: String.self) }
            #expect(kept == ["3"])
            try await UpdateMetricRollupsAddCountry().prepare(on: db)
            #expect(try await stored("*") == [3])
            #expect(try await stored("DE").isEmpty)
            // The unique key includes the country: the same day's rows of every country and of DE live side by side.
            try await store.replace(app: "com.example.reader", from: day, with: rows, cohorts: [], position: position)
            #expect(try await stored("*") == [3])
            #expect(try await stored("DE") == [1])
        }
    }
}
