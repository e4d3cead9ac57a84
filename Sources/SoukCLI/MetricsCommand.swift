import ArgumentParser
import Foundation
import SoukApp
import SoukCore

/// `souk metrics rebuild`: recomputes the daily metrics rollup (docs/metrics.md, "The daily rollup").
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics", abstract: "Subscription metrics: the daily rollup.", subcommands: [Rebuild.self])

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute the daily rollup (of one app, from a day on) and return when done.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only this app (its bundle id; `marketplace` for the marketplace's own plans).") var app: String?
        @Option(help: "The first UTC day to recompute, YYYY-MM-DD (default: the app's first day).") var from: String?

        func run() async throws {
            var first: MetricDay?
            if let from {
                guard let day = MetricDay(from) else { throw CommandFailure("--from “\(from)” is not a day YYYY-MM-DD") }
                first = day
            }
            let written = try await withRuntime(settings) { runtime in
                do {
                    return try await MetricsRollup(database: runtime.database, holder: "cli-\(ProcessInfo.processInfo.processIdentifier)")
                        .rebuild(app: app, from: first)
                } catch let busy as MetricsRollupBusy {
                    throw CommandFailure(busy.description)
                }
            }
            guard !written.isEmpty else { return print("Nothing to compute: no app has purchases, orders or plans.") }
            for app in written {
                print("\(app.app): \(app.days) day(s) from \(app.from), \(app.rows) row(s)")
            }
        }
    }
}
