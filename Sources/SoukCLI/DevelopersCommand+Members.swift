import ArgumentParser
import Foundation
import SoukCore
import SoukStore

extension DeveloperRole: ExpressibleByArgument {}

extension DevelopersCommand {
    /// `souk developers member add|remove`.
    struct Member: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add people to an organisation or remove them.",
                                                        subcommands: [Add.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add an account (by email) to an organisation; an account is in at most one.")
            @OptionGroup var settings: SettingsOptions
            @Option(help: "The organisation's id.") var developer: String
            @Option(help: "The account's email.") var email: String
            @Option(help: "owner (also manages members and API keys) or member.") var role: DeveloperRole

            func run() async throws {
                let member = try await DevelopersCommand.run(settings) { operations, actor, _ in
                    try await operations.addMember(actor: actor, developer: developer, email: email, role: role)
                }
                print("Added \(member.email) to \(developer) as \(member.role.rawValue)")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove an account (by email) from an organisation.")
            @OptionGroup var settings: SettingsOptions
            @Option(help: "The organisation's id.") var developer: String
            @Option(help: "The account's email.") var email: String

            func run() async throws {
                try await DevelopersCommand.run(settings) { operations, actor, _ in
                    try await operations.removeMember(actor: actor, developer: developer, email: email)
                }
                print("Removed \(email) from \(developer)")
            }
        }
    }

    /// `souk developers keys create|list|revoke`.
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An organisation's API keys for /api/v1/developer (stored hashed).",
                                                        subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make an API key; prints the key, once and nothing else (only its SHA-256 is kept).")
            @OptionGroup var settings: SettingsOptions
            @Option(help: "The organisation's id.") var developer: String
            @Option(help: "Comma-separated: \(DeveloperScope.allCases.map(\.rawValue).joined(separator: ", ")).") var scopes: String
            @Option(help: "What the key is for, e.g. ci.") var name: String = "api"

            func validate() throws {
                guard DeveloperScope.parseList(scopes) != nil else {
                    throw ValidationError("--scopes must list one or more of \(DeveloperScope.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }

            func run() async throws {
                let scopes = DeveloperScope.parseList(scopes) ?? []
                let made = try await DevelopersCommand.run(settings) { operations, actor, _ in
                    try await operations.createKey(actor: actor, developer: developer, name: name, scopes: scopes)
                }
                print(made.secret)
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List an organisation's API keys (never the keys themselves).")
            @OptionGroup var settings: SettingsOptions
            @Option(help: "The organisation's id.") var developer: String

            func run() async throws {
                let overview = try await DevelopersCommand.run(settings) { operations, actor, _ in
                    try await operations.overview(actor: actor, developer: developer)
                }
                print(DevelopersCommand.render(keys: overview.keys))
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke an API key at once.")
            @OptionGroup var settings: SettingsOptions
            @Option(help: "The key's id (keys list).") var id: String

            func run() async throws {
                guard let keyID = UUID(uuidString: id) else { throw ValidationError("--id must be a key id (a UUID), got '\(id)'") }
                try await DevelopersCommand.run(settings) { operations, actor, _ in
                    try await operations.revokeKey(actor: actor, id: keyID)
                }
                print("Revoked key \(keyID.uuidString.lowercased())")
            }
        }
    }
}
