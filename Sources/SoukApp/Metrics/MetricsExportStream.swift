import Foundation
import SoukCore
import SoukStore

/// A metrics export under way (docs/metrics.md, "Exports"): every metric of every day of a range,
/// read from the daily rollup a few months at a time and written as lines, so a range of any length
/// takes the same memory. `open` reads the whole range once to check that every day converts: a
/// missing exchange rate is known (and named) before the first line is written.
package struct MetricsExportStream: Sendable {
    package let app: String
    package let from: MetricDay
    package let to: MetricDay
    package let format: MetricsExportFormat
    let rollups: MetricRollupStore
    let converter: CurrencyConverter
    /// Days read from the rollup at a time.
    static let daysPerRead = 92

    /// The stream, once every day of the range converts with `converter`.
    package static func open(app: String, from: MetricDay, to: MetricDay, format: MetricsExportFormat, rollups: MetricRollupStore,
                             converter: CurrencyConverter) async throws -> MetricsExportStream {
        let stream = MetricsExportStream(app: app, from: from, to: to, format: format, rollups: rollups, converter: converter)
        var missing = MissingRates()
        try await stream.eachDay { result in
            if case .failure(let lacking) = result { missing.merge(lacking.rates) }
        }
        guard missing.isEmpty else { throw MetricsExportError.missingRates(missing) }
        return stream
    }

    /// Writes the CSV header and every line through `emit`, a read's worth of days at a time;
    /// answers how many lines of metrics were written.
    @discardableResult
    package func write(_ emit: (String) async throws -> Void) async throws -> Int {
        var count = 0
        if format == .csv { try await emit(MetricsExportLines.csvHeader + "\n") }
        var chunk = ""
        try await eachDay { result in
            // `open` checked every day; a rate removed since fails the rest of the export rather than skipping a day.
            let reported = try result.get()
            for metric in reported {
                chunk += (format == .csv ? MetricsExportLines.csv(metric, app: app) : MetricsExportLines.jsonl(metric, app: app)) + "\n"
                count += 1
            }
        } afterRead: {
            if !chunk.isEmpty { try await emit(chunk) }
            chunk = ""
        }
        return count
    }

    /// Each day of the range, in order, as reported with the converter (or the rates it lacks).
    func eachDay(_ body: (Result<[ReportedMetric], MissingRates>) async throws -> Void,
                 afterRead: () async throws -> Void = {}) async throws {
        var first = from
        while first <= to {
            let last = min(first.adding(days: Self.daysPerRead - 1), to)
            let rows = try await rollups.rows(app: app, sandbox: false, from: first, to: last)
            let byDay = Dictionary(grouping: rows, by: \.day)
            var day = first
            while day <= last {
                try await body(DayMetrics(day: day, rows: byDay[day] ?? []).reported(with: converter))
                day = day.adding(days: 1)
            }
            try await afterRead()
            first = last.adding(days: 1)
        }
    }
}
