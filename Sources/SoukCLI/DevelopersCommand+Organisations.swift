import ArgumentParser
import Foundation
import SoukCore
import SoukStore
import SoukApp

extension DevelopersCommand {
    /// Runs one developer operation as this system user (`cli:<user>` in the audit log); the
    /// operations' refusals become the command's error message.
    static func run<T>(_ settings: SettingsOptions, _ body: (DeveloperOperations, SoukActor, SoukRuntime) async throws -> T) async throws -> T {
        try await withRuntime(settings) { runtime in
            do {
                return try await body(DeveloperOperations(runtime: runtime), .currentCLIUser, runtime)
            } catch let error as DeveloperDirectoryError {
                throw CommandFailure(error.description)
            } catch let error as DeveloperOperationError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a developer organisation; prints its id.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The organisation's name.") var name: String
        @Option(help: "Its id (lower-case letters, digits, dashes); made from the name when left out.") var id: String?
        @Option(help: "The marketplace's share of its sales in percent (default: the server's commissionPercent).") var commission: Int?

        func run() async throws {
            let developer = try await DevelopersCommand.run(settings) { operations, actor, _ in
                try await operations.createDeveloper(actor: actor, name: name, id: id, commissionPercent: commission)
            }
            print(developer.id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the developer organisations.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            let developers = try await DevelopersCommand.run(settings) { operations, actor, _ in try await operations.developers(actor: actor) }
            print(Table(["ID", "NAME", "COMMISSION", "CREATED"], developers.map {
                [$0.id, $0.name, $0.commissionPercent.map { "\($0)%" } ?? "default", Table.date($0.createdAt)]
            }).render())
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an organisation: members, apps, catalogs and API keys (never their secrets).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The organisation's id.") var id: String

        func run() async throws {
            let overview = try await DevelopersCommand.run(settings) { operations, actor, runtime in
                (try await operations.overview(actor: actor, developer: id), runtime.config.commissionPercent)
            }
            print(DevelopersCommand.render(overview.0, defaultCommission: overview.1))
        }
    }

    /// `show`'s text: the organisation, then one section each for members, apps, catalogs and keys.
    static func render(_ overview: DeveloperOverview, defaultCommission: Int) -> String {
        let developer = overview.developer
        let commission = developer.commissionPercent.map { "\($0)%" } ?? "\(defaultCommission)% (the server's default)"
        var lines = ["\(developer.name) (\(developer.id))", "  commission  \(commission)", "  created     \(Table.date(developer.createdAt))", "",
                     "Members:"]
        lines += overview.members.isEmpty ? ["  none"] : overview.members.map { "  \($0.email)  \($0.role.rawValue)" }
        lines += ["", "Apps:"]
        lines += overview.apps.isEmpty ? ["  none"] : overview.apps.map { "  \($0.appleItemId)  \($0.bundleId)  \($0.name)  (\($0.versions) versions)" }
        lines += ["", "In-app catalogs:"]
        lines += overview.catalogs.isEmpty ? ["  none"] : overview.catalogs.map { "  \($0)" }
        lines += ["", "API keys:"]
        lines += overview.keys.isEmpty ? ["  none"] : [render(keys: overview.keys)]
        return lines.joined(separator: "\n")
    }

    /// API keys as `show` and `keys list` print them: the last four characters, never the key.
    static func render(keys: [DeveloperAPIKey]) -> String {
        Table(["ID", "NAME", "SCOPES", "KEY", "CREATED", "LAST USED", "REVOKED"], keys.map {
            [$0.id.uuidString.lowercased(), $0.name, DeveloperScope.format($0.scopes), "sk_…\($0.hint)", Table.date($0.createdAt),
             Table.date($0.lastUsedAt), Table.date($0.revokedAt)]
        }).render()
    }

    struct SetCommission: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-commission",
                                                        abstract: "Set an organisation's commission, or give it the server's default again.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The organisation's id.") var id: String
        @Option(help: "The marketplace's share of its sales in percent, 0–100.") var percent: Int?
        @Flag(name: .customLong("default"), help: "Use the server's commissionPercent.") var useDefault = false

        func validate() throws {
            guard (percent != nil) != useDefault else { throw ValidationError("give either --percent P or --default") }
        }

        func run() async throws {
            try await DevelopersCommand.run(settings) { operations, actor, _ in
                try await operations.setCommission(actor: actor, developer: id, percent: percent)
            }
            print(percent.map { "Commission of \(id): \($0)%" } ?? "Commission of \(id): the server's default")
        }
    }
}
