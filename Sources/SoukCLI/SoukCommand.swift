import ArgumentParser

/// The operator commands of `souk`, in the order `souk --help` lists them. The `souk` command itself
/// (`SoukCommand`, in `SoukServe`) adds `serve` and `bench`, which start the HTTP face.
public enum OperatorCommands {
    public static let all: [any ParsableCommand.Type] = [
            MigrateCommand.self, AccountsCommand.self, AppsCommand.self,
            PackagesCommand.self, KeysCommand.self, MarketplaceCommand.self, LinksCommand.self, DevelopersCommand.self, DemoCommand.self,
            LicensesCommand.self, AppStoreConnectCommand.self, MaintenanceCommand.self, AppleCommand.self,
            CatalogCommand.self, PurchasesCommand.self, EntitlementsCommand.self, WebhooksCommand.self, StoresCommand.self,
            ContentCommand.self, SandboxCommand.self, AuditCommand.self, BackupCommand.self,
            ClientsCommand.self,
            SubscriptionsCommand.self,
            ReviewCommand.self, PayoutsCommand.self, RatesCommand.self, ExportCommand.self,
    ]
}
