import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Testing

/// The scheduled exports' record (migration 049) on both databases: a day is recorded once however
/// often it is made due, failures count their attempts, and the migration reverts and applies again.
@Suite struct ScheduledExportLedgerTests {
    @Test(arguments: TestBackend.available)
    func aDayIsRecordedOnceAndItsAttemptsCounted(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let ledger = ScheduledExportLedger(database: fixture.database)
            let days = ["2026-11-09", "2026-11-10"].compactMap(MetricDay.init)
            try await ledger.addDue(developer: "acme", app: "org.acme.reader", days: days)
            try await ledger.addDue(developer: "acme", app: "org.acme.reader", days: days)
            #expect(try await ledger.latestDay(developer: "acme", app: "org.acme.reader") == days[1])
            #expect(try await ledger.latestDay(developer: "beta", app: "org.acme.reader") == nil)
            let due = try await ledger.due(through: days[1])
            #expect(due.map(\.day) == days && due.allSatisfy { $0.attempts == 0 && $0.writtenAt == nil })
            try await ledger.markFailed(due[0].id, error: "object store unavailable: PUT … answered 503")
            try await ledger.markWritten(due[1].id, purchases: 3, events: 4)
            let after = try await ledger.due(through: days[1])
            #expect(after.count == 1 && after[0].attempts == 1 && after[0].lastError?.contains("503") == true)
            #expect(try await ledger.due(through: days[0].adding(days: -1)).isEmpty)
            let written = try #require(try await ledger.list().first { $0.day == days[1] })
            #expect(written.writtenAt != nil && written.purchases == 3 && written.events == 4 && written.attempts == 1)

            let db = fixture.database.db
            try await CreateScheduledExports().revert(on: db)
            try await AddExportIndexes().revert(on: db)
            try await AddExportIndexes().prepare(on: db)
            try await CreateScheduledExports().prepare(on: db)
            #expect(try await ledger.list().isEmpty)
        }
    }
}
