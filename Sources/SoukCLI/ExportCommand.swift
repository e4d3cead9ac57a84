import ArgumentParser

/// `souk export …`: an app's data as files (docs/metrics.md, "Exports").
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export an app's purchases, lifecycle events, metrics or cohorts as CSV or JSON Lines.",
        subcommands: [ExportPurchasesCommand.self, ExportEventsCommand.self, ExportMetricsCommand.self, ExportCohortsCommand.self,
                      ExportScheduledCommand.self])
}
