import ArgumentParser
import SoukCore
import SoukStore

extension RegisteredClient.Kind: ExpressibleByArgument {}

/// `souk clients add|list|remove`: the registered OAuth clients (docs/oauth.md, "Registered clients").
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients", abstract: "Register OAuth clients: apps that sign people in (native, web) and TVs.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a client and print its client_id.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The name people see when the client asks to sign in.") var name: String
        @Option(help: "native (custom scheme, https or loopback redirects), web (https) or tv (device authorization grant).")
        var kind: RegisteredClient.Kind
        @Option(name: .customLong("redirect-uri"), help: "An exact redirect URI (repeat for several; none for a tv client).")
        var redirectURIs: [String] = []
        @Option(help: "Bind the client's tokens to this app's commerce API (/commerce/APP/…).") var app: String?

        func run() async throws {
            try await withRuntime(settings) { runtime in
                switch try await ClientRegistry(database: runtime.database)
                    .add(name: name, kind: kind, redirectURIs: redirectURIs, app: app, actor: AuditLog.cliActor) {
                case .failure(let problem): throw CommandFailure(problem.description)
                case .success(let client): print(client.clientId)
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the registered clients.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            let entries = try await withRuntime(settings) { try await ClientRegistry(database: $0.database).list() }
            print(Table(["CLIENT_ID", "KIND", "NAME", "APP", "REGISTERED", "REDIRECT_URIS"], entries.map { entry in
                [entry.client.clientId, entry.client.kind.rawValue, entry.client.name, entry.client.app ?? "-",
                 Table.date(entry.createdAt), entry.client.redirectURIs.isEmpty ? "-" : entry.client.redirectURIs.joined(separator: " ")]
            }).render())
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a client; its tokens stop working at once.")
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The client_id.") var clientId: String

        func run() async throws {
            let removed = try await withRuntime(settings) {
                try await ClientRegistry(database: $0.database).remove(clientId: clientId, actor: AuditLog.cliActor)
            }
            guard removed else { throw CommandFailure("no registered client \(clientId)") }
            print("removed \(clientId)")
        }
    }
}
