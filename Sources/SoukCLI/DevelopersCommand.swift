import ArgumentParser

/// `souk developers …`: developer organisations, their members and API keys (docs/developers.md),
/// and `token`, the token a developer gives App Store Connect to work with this marketplace.
struct DevelopersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "developers", abstract: "Work with app developers: organisations, members, API keys, tokens.",
        subcommands: [Add.self, List.self, Show.self, SetCommission.self, Member.self, Keys.self, Token.self])

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a developer relationship token (ES256 JWT, valid just under 7 days).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The developer's id in App Store Connect.") var developerId: String

        func validate() throws {
            guard !developerId.isEmpty, developerId.count <= 128, developerId.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw ValidationError("--developer-id must be 1–128 letters, digits or dashes")
            }
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                print(try await runtime.developerRelationshipToken(developerId: developerId))
            }
        }
    }
}
