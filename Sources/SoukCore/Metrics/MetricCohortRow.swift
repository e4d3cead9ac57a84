import Foundation

/// One cell of an app's cohort table as the rollup keeps it (`metric_cohorts`, docs/metrics.md
/// "Cohorts in the rollup"), in one environment.
public struct MetricCohortRow: Sendable, Equatable {
    public var app: String
    public var sandbox: Bool
    public var cell: CohortCell

    public init(app: String, sandbox: Bool, cell: CohortCell) {
        self.app = app
        self.sandbox = sandbox
        self.cell = cell
    }
}

extension StatementMonth {
    /// The month `months` after this one (before it when negative).
    public func adding(months: Int) -> StatementMonth {
        let index = year * 12 + (month - 1) + months
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return StatementMonth(containing: calendar.date(from: DateComponents(year: index / 12, month: index % 12 + 1, day: 1))!)
    }
}

extension CohortCell {
    /// The calendar month the cell counts: `cohort + month`.
    public var countedMonth: StatementMonth { cohort.adding(months: month) }
}
