import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk export scheduled [--list]`: runs the scheduled exports now (as a server does every ten
/// minutes, under the same lease), or lists the days recorded.
struct ExportScheduledCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduled",
        abstract: "Write the organisations' daily exports due now to the bucket (scheduledExports), or list the days recorded.")
    @OptionGroup var settings: SettingsOptions
    @Flag(help: "Only list the days recorded, newest first.") var list = false

    func run() async throws {
        try await withRuntime(settings) { runtime in
            if !list {
                guard runtime.config.scheduledExports != nil else {
                    throw CommandFailure("scheduled exports are off: set scheduledExports (SOUK_SCHEDULED_EXPORTS=true) and the s3… settings")
                }
                guard let report = try await ScheduledExportService(runtime, metrics: nil).runOnce() else {
                    throw CommandFailure("another process is writing the scheduled exports now; try again later")
                }
                print("Written: \(report.written.count), failed: \(report.failed.count)")
                for entry in report.failed { print("failed: \(entry.developerID) \(entry.app) \(entry.day): \(entry.lastError ?? "")") }
                return
            }
            let days = try await ScheduledExportLedger(database: runtime.database).list()
            guard !days.isEmpty else { return print("No scheduled exports recorded.") }
            print(Table(["DEVELOPER", "APP", "DAY", "WRITTEN", "PURCHASES", "EVENTS", "ATTEMPTS", "LAST ERROR"], days.map { day in
                [day.developerID, day.app, day.day.description, Table.date(day.writtenAt), day.purchases.map(String.init) ?? "-",
                 day.events.map(String.init) ?? "-", String(day.attempts), day.lastError ?? "-"]
            }).render())
        }
    }
}
