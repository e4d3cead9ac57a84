import ArgumentParser

/// `souk stores …`: the stores' side of in-app purchases: each app's store settings,
/// what the stores last said, the notifications they sent, and re-checking subscriptions.
struct StoresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "The stores' side of in-app purchases: settings, status, notifications received.",
        subcommands: [StoresSetCommand.self, StoresStatusCommand.self, StoresNotificationsCommand.self, StoresReconcileCommand.self,
                      StoresCredentialsCommand.self]
    )
}
