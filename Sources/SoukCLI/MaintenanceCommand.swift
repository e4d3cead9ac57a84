import ArgumentParser
import Foundation
import SoukApp
import SoukStore

/// `souk maintenance …`: housekeeping a running server also does by itself.
struct MaintenanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance", abstract: "Housekeeping that running servers also do by themselves.",
        subcommands: [CleanupCommand.self])

    struct CleanupCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cleanup",
            abstract: "Remove expired codes, grants, tokens, sessions, throttle counters, licenses expired over 30 days ago, files that killed imports and uploads left behind, and blobs no row has named for a day, once.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let service = CleanupService(cleanup: Cleanup(database: runtime.database),
                                             files: StaleFiles(blobs: runtime.blobs, workFolder: runtime.config.workDir),
                                             blobs: UnreferencedBlobs(blobs: runtime.blobs, database: runtime.database),
                                             lease: MaintenanceLease(database: runtime.database),
                                             interval: .zero, logger: runtime.logger)
                guard let report = try await service.sweepOnce(blobsNow: true) else {
                    throw CommandFailure("a server is sweeping right now; nothing to do (try again in a few minutes)")
                }
                for (name, removed) in report { print("\(name): \(removed) removed") }
            }
        }
    }
}
