import ArgumentParser
import SoukServer

/// `souk`: the server and its operator commands.
public struct SoukCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "souk",
        abstract: "An alternative iOS app marketplace server (MarketplaceKit) and in-app commerce backend.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, AccountsCommand.self, AppsCommand.self,
            PackagesCommand.self, KeysCommand.self, MarketplaceCommand.self, LinksCommand.self, DevelopersCommand.self, DemoCommand.self,
            LicensesCommand.self, AppStoreConnectCommand.self, MaintenanceCommand.self, BenchCommand.self, AppleCommand.self,
            CatalogCommand.self, PurchasesCommand.self, EntitlementsCommand.self, WebhooksCommand.self, StoresCommand.self,
            ContentCommand.self, SandboxCommand.self, AuditCommand.self, BackupCommand.self,
            ClientsCommand.self,
            SubscriptionsCommand.self,
            ReviewCommand.self, PayoutsCommand.self,
        ]
    )

    public init() {}
}

extension SoukCommand {
    /// Parses and runs one command line in this process, throwing what the command throws (tests,
    /// and programs that embed Souk's commands). `main` would print the error and exit instead.
    public static func run(_ arguments: [String]) async throws {
        var command = try parseAsRoot(arguments)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }
}
