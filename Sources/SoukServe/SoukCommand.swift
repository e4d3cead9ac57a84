import ArgumentParser
import SoukCLI

/// `souk`: the server and its operator commands.
public struct SoukCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "souk",
        abstract: "An alternative iOS app marketplace server (MarketplaceKit) and in-app commerce backend.",
        subcommands: [ServeCommand.self] + OperatorCommands.all + [BenchCommand.self]
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
