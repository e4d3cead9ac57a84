import ArgumentParser
import SoukApp

/// `souk links install`: a complete install link for an account, for support and testing.
struct LinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links", abstract: "Make marketplace-kit:// links.", subcommands: [Install.self])

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a marketplace-kit://install link for an account (valid 10 minutes, single use).")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(help: "AppleVersionID to install (default: the newest).") var appleVersionId: String?
        @Option(help: "Email of the account the link signs in.") var account: String

        func run() async throws {
            let id = try selection.appleItemId()
            let version = try appleVersionId.map { try parseAppleID($0, option: "--apple-version-id") }
            try await withRuntime(settings) { runtime in
                print(try await InstallLinks(runtime: runtime).make(appleItemId: id, email: account, appleVersionId: version).url)
            }
        }
    }
}
