import Foundation
import SoukCore
import SoukStore

/// The formats of the metrics exports.
package enum MetricsExportFormat: String, Sendable {
    case csv, jsonl
}

/// Why a metrics export was not made: the reach check's refusal, bad input, or money in a currency
/// without an exchange rate (named, never guessed).
package enum MetricsExportError: Error, CustomStringConvertible {
    case missingRates(MissingRates)

    package var description: String {
        switch self {
        case .missingRates(let missing): "the metrics cannot be converted: \(missing)"
        }
    }
}

/// `souk export metrics|cohorts` (docs/metrics.md, "Exports"): the lines of `MetricsExportLines` for
/// an app the actor reaches with `metrics:read`. Metrics come from the daily rollup, converted into
/// `currency` at each day's rates; cohorts are computed from the app's periods (the rollup keeps
/// days, not cohorts), so they read the app's records once.
package struct MetricsExports: Sendable {
    package let ownership: DeveloperOwnership
    package let database: SoukDatabase

    package init(ownership: DeveloperOwnership, database: SoukDatabase) {
        self.ownership = ownership
        self.database = database
    }

    /// One line per day and metric (production), from `from` through `to`, after the CSV header.
    package func metrics(actor: SoukActor, app: String, from: MetricDay, to: MetricDay, format: MetricsExportFormat,
                         currency: String) async throws -> [String] {
        try await check(actor: actor, app: app, currency: currency)
        guard from <= to else { throw DeveloperOperationError.invalid(field: "from", "must not be after --to") }
        let rows = try await MetricRollupStore(database: database).rows(app: app, sandbox: false, from: from, to: to)
        let converter = try await ExchangeRateStore(database: database).converter(reportingCurrency: currency)
        let byDay = Dictionary(grouping: rows, by: \.day)
        var lines = format == .csv ? [MetricsExportLines.csvHeader] : []
        var missing = MissingRates()
        var day = from
        while day <= to {
            switch DayMetrics(day: day, rows: byDay[day] ?? []).reported(with: converter) {
            case .success(let reported):
                lines += reported.map { format == .csv ? MetricsExportLines.csv($0, app: app) : MetricsExportLines.jsonl($0, app: app) }
            case .failure(let lacking):
                missing.merge(lacking.rates)
            }
            day = day.adding(days: 1)
        }
        guard missing.isEmpty else { throw MetricsExportError.missingRates(missing) }
        return lines
    }

    /// One line per cohort cell (production), for the cohorts of `from` through `to`.
    package func cohorts(actor: SoukActor, app: String, from: StatementMonth, to: StatementMonth,
                         format: MetricsExportFormat) async throws -> [String] {
        try await check(actor: actor, app: app, currency: nil)
        guard from <= to else { throw DeveloperOperationError.invalid(field: "from-month", "must not be after --to-month") }
        let periods = try await MetricPeriodGatherer(database: database).periods(app: app)
        let cells = SubscriptionMetrics(periods: periods).cohorts(from: from, to: to)
        return (format == .csv ? [MetricsExportLines.cohortCSVHeader] : [])
            + cells.map { format == .csv ? MetricsExportLines.csv($0) : MetricsExportLines.jsonl($0) }
    }

    func check(actor: SoukActor, app: String, currency: String?) async throws {
        try DeveloperOwnership.authorize(actor, .metricsRead)
        try await ownership.reach(catalog: app, for: actor)
        if let currency, !ISO4217.isCurrency(currency) {
            throw DeveloperOperationError.invalid(field: "currency", "“\(currency)” is not an ISO 4217 code such as USD")
        }
    }
}
