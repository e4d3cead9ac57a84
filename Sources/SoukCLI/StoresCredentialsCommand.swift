import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk stores credentials set|list|remove`: a catalog's store credentials uploaded from a file and
/// sealed at rest in the database (docs/developers.md, "Store credentials"). The secret is read
/// from the file, checked, sealed and never printed again; `list` shows each one's hint.
struct StoresCredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "A catalog's store credentials sealed at rest: set (upload or rotate), list, remove.",
        subcommands: [SetCredential.self, List.self, Remove.self]
    )

    static let kinds = StoreCredentialKind.allCases.map { "\(StoreCredentialKind.storeWord($0.store)) \($0.rawValue)" }.joined(separator: ", ")

    static func kind(store: String, kind: String) throws -> StoreCredentialKind {
        guard let found = StoreCredentialKind(store: store, kind: kind) else {
            throw ValidationError("--store \(store) --kind \(kind) is not a store credential; one of: \(kinds).")
        }
        return found
    }

    /// Runs one credential operation as this system user; refusals become the command's message.
    static func run<T>(_ settings: SettingsOptions, _ body: (StoreCredentialOperations, SoukActor) async throws -> T) async throws -> T {
        try await withRuntime(settings) { runtime in
            do {
                return try await body(StoreCredentialOperations(runtime: runtime), .currentCLIUser)
            } catch let error as DeveloperOperationError {
                throw CommandFailure(error.description)
            } catch let error as CredentialSealingError {
                throw CommandFailure("The credential cannot be sealed: \(error.description)")
            }
        }
    }

    struct SetCredential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Seal a credential read from a file; replaces the one of the same kind.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name); it must have a catalog.") var app: String
        @Option(help: "apple, google, amazon or roku.") var store: String
        @Option(help: "server-api-key (apple), service-account or rtdn-token (google), shared-secret (amazon), partner-api-key (roku).")
        var kind: String
        @Option(help: "The file holding the credential (.p8, JSON key file, or one line of text).") var file: String

        func run() async throws {
            let kind = try StoresCredentialsCommand.kind(store: store, kind: kind)
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
            let filename = URL(fileURLWithPath: file).lastPathComponent
            let set = try await StoresCredentialsCommand.run(settings) { operations, actor in
                try await operations.set(actor: actor, app: app, kind: kind, upload: Array(data), filename: filename)
            }
            print("Sealed \(kind.name) for \(app): \(set.hint)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a catalog's sealed credentials (hints only, never the secrets).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name).") var app: String

        func run() async throws {
            let credentials = try await StoresCredentialsCommand.run(settings) { operations, actor in
                try await operations.list(actor: actor, app: app)
            }
            print(Table(["STORE", "KIND", "HINT", "SEALING KEY", "SET BY", "SET AT"], credentials.map {
                [StoreCredentialKind.storeWord($0.kind.store), $0.kind.rawValue, $0.hint, $0.keyId, $0.setBy, Table.date($0.setAt)]
            }).render())
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a sealed credential (the catalog file's reference, if any, is used again).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "apple, google, amazon or roku.") var store: String
        @Option(help: "The credential's kind (see `set --help`).") var kind: String

        func run() async throws {
            let kind = try StoresCredentialsCommand.kind(store: store, kind: kind)
            try await StoresCredentialsCommand.run(settings) { operations, actor in
                try await operations.remove(actor: actor, app: app, kind: kind)
            }
            print("Removed \(kind.name) of \(app).")
        }
    }
}
