import ArgumentParser

/// `souk migrate`: applies pending migrations (the only way PostgreSQL's schema changes).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply pending database migrations.")

    @OptionGroup var settings: SettingsOptions

    func run() async throws {
        try await withRuntime(settings, migrate: true) { runtime in
            print("Database is up to date: \(runtime.config.database)")
        }
    }
}
