import ArgumentParser
import SoukApp

/// `souk demo seed`: a demo marketplace in an empty store.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Demo data.", subcommands: [Seed.self])

    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fill an empty catalog with demo apps, packages and an account.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let outcome = try await DemoSeeder(runtime: runtime).seedIfEmpty()
                print(outcome.lines(publicURL: runtime.config.publicURL).joined(separator: "\n"))
            }
        }
    }
}
