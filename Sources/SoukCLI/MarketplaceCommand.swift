import ArgumentParser
import SoukApp
import SoukStore

/// `souk marketplace …`: the marketplace's own identity.
struct MarketplaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marketplace", abstract: "Show or set the marketplace's identity.", subcommands: [Show.self, Set.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the marketplace identity.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let marketplace = try await runtime.catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId)
                print("""
                name                         \(marketplace.name)
                AppleItemID                  \(marketplace.appleItemId == 0 ? "not set (souk marketplace set --apple-item-id N)" : String(marketplace.appleItemId))
                install verification key id  \(marketplace.installVerificationKeyId)
                """)
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the marketplace name, AppleItemID or signing key id.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Display name.") var name: String?
        @Option(help: "The marketplace app's AppleItemID.") var appleItemId: String?
        @Option(help: "Key id App Store Connect gave the alternative distribution key.") var keyId: String?

        func run() async throws {
            let id = try appleItemId.map { try parseAppleID($0, option: "--apple-item-id") }
            try await withRuntime(settings) { runtime in
                let marketplace: MarketplaceIdentity
                do {
                    marketplace = try await MarketplaceOperations(runtime: runtime).setIdentity(actor: .currentCLIUser, name: name,
                                                                                               appleItemId: id, keyId: keyId)
                } catch DeveloperOperationError.invalid(_, let problem) {
                    throw ValidationError(problem)
                }
                print("Updated marketplace \(marketplace.name)")
            }
        }
    }
}
