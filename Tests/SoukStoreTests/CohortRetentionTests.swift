import Foundation
import SoukCore
import SoukTestSupport
import Testing

/// Cohort retention as the rollup computes it (docs/metrics.md, "Cohorts in the rollup"): a month
/// not ended by the day computed counts the accounts active on that day, and later months have no
/// cells; ended months are exactly the definition's.
@Suite struct CohortRetentionTests {
    static func lines(_ cells: [CohortCell]) -> [String] {
        cells.map { "\($0.cohort) \($0.month) \($0.active)/\($0.accounts) \($0.share)" }
    }

    @Test func aMonthNotEndedCountsTheAccountsActiveOnTheDayComputed() {
        let metrics = SubscriptionMetrics(periods: MetricsHistory.periods)
        let (october, december) = (StatementMonth("2026-10")!, StatementMonth("2026-12")!)
        // On 11-19: a4 is back (H from 11-18) and a5 has not ended yet (11-20): all five of October's cohort.
        #expect(Self.lines(metrics.cohorts(from: october, to: december, through: MetricDay("2026-11-19")!))
                == ["2026-10 0 5/5 1.0", "2026-10 1 5/5 1.0", "2026-11 0 1/2 0.5"])
        // On 11-15 a4's grace ended at noon and H has not begun.
        #expect(Self.lines(metrics.cohorts(from: october, to: december, through: MetricDay("2026-11-15")!))
                == ["2026-10 0 5/5 1.0", "2026-10 1 4/5 0.8", "2026-11 0 1/2 0.5"])
        // On 12-01 November has ended: its cells are the definition's (its last day); December's are as of 12-01.
        #expect(Self.lines(metrics.cohorts(from: october, to: december, through: MetricDay("2026-12-01")!))
                == ["2026-10 0 5/5 1.0", "2026-10 1 4/5 0.8", "2026-10 2 4/5 0.8", "2026-11 0 1/2 0.5", "2026-11 1 1/2 0.5"])
        let ended = MetricDay("2026-12-31")!
        #expect(metrics.cohorts(from: october, to: december, through: ended) == metrics.cohorts(from: october, to: december))
    }

    @Test func monthsAddAcrossYears() {
        let november = StatementMonth("2026-11")!
        #expect(november.adding(months: 2).description == "2027-01" && november.adding(months: -11).description == "2025-12")
        #expect(CohortCell(cohort: november, month: 14, accounts: 1, active: 1).countedMonth.description == "2028-01")
    }
}
