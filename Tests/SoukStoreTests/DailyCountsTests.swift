import Foundation
@testable import SoukStore
import SoukTestSupport
import Testing

@Suite struct DailyCountsTests {
    /// The arithmetic day agrees with Foundation's Gregorian calendar in UTC, across leap years and centuries.
    @Test func theDayOfADateIsTheUTCCalendarDay() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var instant = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01
        let end = Date(timeIntervalSince1970: 4_102_444_800)       // 2100-01-01
        while instant < end {
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            let expected = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            #expect(DailyCounts.day(instant) == expected)
            if DailyCounts.day(instant) != expected { return }
            instant = instant.addingTimeInterval(86_400 * 7 + 3_601)  // every week, at drifting hours
        }
        #expect(DailyCounts.day(Date(timeIntervalSince1970: 1_795_823_999)) == "2026-11-27")
        #expect(DailyCounts.day(Date(timeIntervalSince1970: 1_795_824_000)) == "2026-11-28")
    }
}

extension DailyCountsTests {
    /// A read while flushes run sees every count once: flushed, in flight or still in memory.
    @Test(arguments: TestBackend.available)
    func aReadDuringAFlushMissesNothing(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let counts = DailyCounts(database: store.database)
            let today = Date()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<200 { try await counts.flush() }
                }
                for added in 1...200 {
                    counts.add("license.requests", at: today)
                    let seen = try await counts.series("license.requests", days: 1, endingAt: today).last?.count
                    #expect(seen == added)
                    if seen != added { break }
                }
                try await group.waitForAll()
            }
        }
    }
}
