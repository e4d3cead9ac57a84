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

/// `souk export metrics|cohorts` (docs/metrics.md, "Exports"), the consoles' downloads and the
/// scheduled exports: the lines of `MetricsExportLines` for an app the actor reaches with
/// `metrics:read`. Both come from the daily rollup, never from the purchases: metrics from its days,
/// converted into `currency` at each day's rates; cohorts from its cohort table.
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
        var lines: [String] = []
        try await openMetrics(actor: actor, app: app, from: from, to: to, format: format, currency: currency).write { chunk in
            lines += chunk.split(separator: "\n").map(String.init)
        }
        return lines
    }

    /// The metrics export of `from` through `to` as a stream, once the actor's reach, the range
    /// and every day's exchange rates are checked.
    package func openMetrics(actor: SoukActor, app: String, from: MetricDay, to: MetricDay, format: MetricsExportFormat,
                             currency: String) async throws -> MetricsExportStream {
        try await check(actor: actor, app: app, currency: currency)
        return try await openMetrics(app: app, from: from, to: to, format: format, currency: currency)
    }

    /// The export without a reach check: for an organisation's scheduled export, checked by its caller.
    package func openMetrics(app: String, from: MetricDay, to: MetricDay, format: MetricsExportFormat,
                             currency: String) async throws -> MetricsExportStream {
        guard from <= to else { throw DeveloperOperationError.invalid(field: "from", "must not be after --to") }
        let converter = try await ExchangeRateStore(database: database).converter(reportingCurrency: currency)
        return try await MetricsExportStream.open(app: app, from: from, to: to, format: format,
                                                  rollups: MetricRollupStore(database: database), converter: converter)
    }

    /// One line per cohort cell (production), for the cohorts of `from` through `to`, each month
    /// after a cohort up to `to` (and no later than the rollup's last day), after the CSV header.
    package func cohorts(actor: SoukActor, app: String, from: StatementMonth, to: StatementMonth,
                         format: MetricsExportFormat) async throws -> [String] {
        try await check(actor: actor, app: app, currency: nil)
        return try await cohorts(app: app, from: from, to: to, format: format)
    }

    /// The cohort lines without a reach check: for an organisation's scheduled export.
    package func cohorts(app: String, from: StatementMonth, to: StatementMonth, format: MetricsExportFormat) async throws -> [String] {
        guard from <= to else { throw DeveloperOperationError.invalid(field: "from-month", "must not be after --to-month") }
        let cells = try await MetricRollupStore(database: database).cohorts(app: app, sandbox: false, from: from, to: to)
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
