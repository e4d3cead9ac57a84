import ArgumentParser
import Foundation
import SoukApp
import SoukCore

/// `souk export metrics`: one line per day and metric from the daily rollup (docs/metrics.md, "Exports").
struct ExportMetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics", abstract: "An app's daily metrics (production) in the reporting currency, from the daily rollup.")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app's bundle id (`marketplace` for the marketplace's own plans).") var app: String
    @Option(help: "The first UTC day, YYYY-MM-DD.") var from: String
    @Option(help: "The last UTC day, YYYY-MM-DD (included).") var to: String
    @Option(help: "csv or jsonl.") var format: String
    @Option(help: "The currency money is converted into (default: the reporting currency).") var currency: String?
    @Option(help: "Write to this file (made whole or not at all) instead of standard output.") var out: String?

    func run() async throws {
        guard let first = MetricDay(from) else { throw ValidationError("--from “\(from)” is not a day YYYY-MM-DD") }
        guard let last = MetricDay(to) else { throw ValidationError("--to “\(to)” is not a day YYYY-MM-DD") }
        guard let format = MetricsExportFormat(rawValue: format) else { throw ValidationError("--format must be csv or jsonl") }
        let lines = try await withRuntime(settings) { runtime in
            try await MetricsExportFile.lines {
                try await MetricsExports(ownership: DeveloperOperations(runtime: runtime).ownership, database: runtime.database)
                    .metrics(actor: .currentCLIUser, app: app, from: first, to: last, format: format,
                             currency: currency ?? runtime.config.reportingCurrency)
            }
        }
        try MetricsExportFile.write(lines, to: out)
    }
}

/// `souk export cohorts`: one line per cohort cell (docs/metrics.md, "Exports").
struct ExportCohortsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cohorts", abstract: "An app's subscription retention by cohort (month of the first paid period × months since).")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app's bundle id (`marketplace` for the marketplace's own plans).") var app: String
    @Option(name: .customLong("from-month"), help: "The first cohort, YYYY-MM.") var fromMonth: String
    @Option(name: .customLong("to-month"), help: "The last cohort and the last month counted, YYYY-MM.") var toMonth: String
    @Option(help: "csv or jsonl.") var format: String
    @Option(help: "Write to this file (made whole or not at all) instead of standard output.") var out: String?

    func run() async throws {
        guard let first = StatementMonth(fromMonth) else { throw ValidationError("--from-month “\(fromMonth)” is not a month YYYY-MM") }
        guard let last = StatementMonth(toMonth) else { throw ValidationError("--to-month “\(toMonth)” is not a month YYYY-MM") }
        guard let format = MetricsExportFormat(rawValue: format) else { throw ValidationError("--format must be csv or jsonl") }
        let lines = try await withRuntime(settings) { runtime in
            try await MetricsExportFile.lines {
                try await MetricsExports(ownership: DeveloperOperations(runtime: runtime).ownership, database: runtime.database)
                    .cohorts(actor: .currentCLIUser, app: app, from: first, to: last, format: format)
            }
        }
        try MetricsExportFile.write(lines, to: out)
    }
}

/// Where the metrics exports go: standard output, or a file that appears only once it is whole.
enum MetricsExportFile {
    /// The export's lines, its refusals worded as the command's failure.
    static func lines(_ make: () async throws -> [String]) async throws -> [String] {
        do {
            return try await make()
        } catch let failure as DeveloperOperationError {
            throw CommandFailure(failure.description)
        } catch let failure as MetricsExportError {
            throw CommandFailure(failure.description)
        }
    }

    static func write(_ lines: [String], to path: String?) throws {
        let text = lines.map { $0 + "\n" }.joined()
        guard let path else { return print(text, terminator: "") }
        // Written beside and renamed: a reader never sees half a file.
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
