import ArgumentParser

/// `souk stores …`: what Souk knows of the stores (issue 12). `notifications` lists what the stores
/// sent; `set`, `status` and `reconcile` join it as issue 12's store wiring lands.
struct StoresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "The stores' side of in-app purchases: notifications received.",
        subcommands: [StoresNotificationsCommand.self]
    )
}
