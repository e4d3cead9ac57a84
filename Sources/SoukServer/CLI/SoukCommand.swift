import ArgumentParser

/// `souk`: the server and its operator commands.
public struct SoukCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "souk",
        abstract: "An alternative iOS app marketplace server (MarketplaceKit) and in-app commerce backend.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, AccountsCommand.self, AppsCommand.self,
            PackagesCommand.self, KeysCommand.self, MarketplaceCommand.self, LinksCommand.self, DevelopersCommand.self, DemoCommand.self,
            LicensesCommand.self, AppStoreConnectCommand.self, MaintenanceCommand.self, BenchCommand.self,
        ]
    )

    public init() {}
}
