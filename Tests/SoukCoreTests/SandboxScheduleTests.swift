import Foundation
import SoukCore
import Testing

/// Apple's accelerated sandbox renewals (spec §2): Apple's table, 12 renewals then the end.
@Suite struct SandboxScheduleTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [("P1W", 180.0), ("P1M", 300.0), ("P2M", 600.0), ("P3M", 900.0), ("P6M", 1800.0), ("P1Y", 3600.0),
                      ("P2W", 360.0), ("P1D", 25.7142857142857), ("P1Y6M", 5400.0)])
    func periodsFollowApplesTable(period: String, seconds: Double) throws {
        let duration = try #require(ISODuration(period))
        #expect(abs(SandboxSchedule.compressed(duration) - seconds) < 0.001)
    }

    @Test func aMonthlySubscriptionRenewsTwelveTimesThenExpires() throws {
        let monthly = try #require(ISODuration("P1M"))
        let first = SandboxSchedule.position(start: Self.start, period: monthly, now: Self.start.addingTimeInterval(299))
        #expect(first.renewals == 0 && first.periodEnd == Self.start.addingTimeInterval(300) && !first.expired && first.willRenew)
        let third = SandboxSchedule.position(start: Self.start, period: monthly, now: Self.start.addingTimeInterval(600))
        #expect(third.renewals == 2 && third.periodStart == Self.start.addingTimeInterval(600))
        let last = SandboxSchedule.position(start: Self.start, period: monthly, now: Self.start.addingTimeInterval(12 * 300 + 1))
        #expect(last.renewals == 12 && !last.willRenew && !last.expired && last.periodEnd == Self.start.addingTimeInterval(13 * 300))
        let over = SandboxSchedule.position(start: Self.start, period: monthly, now: Self.start.addingTimeInterval(24 * 300))
        #expect(over.renewals == 12 && over.expired && over.periodEnd == Self.start.addingTimeInterval(13 * 300))
        // A clock before the purchase is the first period.
        #expect(SandboxSchedule.position(start: Self.start, period: monthly, now: Self.start.addingTimeInterval(-50)).renewals == 0)
    }
}
