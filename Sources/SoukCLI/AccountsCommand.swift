import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

#if canImport(Glibc)
import Glibc
#endif

/// `souk accounts …`: people who sign in.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts", abstract: "Manage accounts.",
        subcommands: [Create.self, List.self, Show.self, ResetPassword.self, Disable.self, Enable.self, SetDeviceLimit.self, SetRole.self,
                      TOTPCommand.self, Sales.self, Refund.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account (the password is prompted for when not given).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address (case-insensitive, unique).") var email: String
        @Option(help: "Password (at least 8 characters); prompted for when omitted.") var password: String?
        @Flag(help: "A sandbox account: it presents and sees only purchases made in the stores' sandboxes.") var sandbox = false
        @Option(help: "customer (the default), support or operator: the last two open the console at /admin.") var role: AccountRole = .customer

        func run() async throws {
            let password = try password ?? promptPassword()
            let hash = try PasswordHashing.hash(password)
            try await withRuntime(settings) { runtime in
                let account = try await PeopleOperationError.failing {
                    try await PeopleOperations(runtime: runtime).create(actor: .currentCLIUser, email: email, passwordHash: hash,
                                                                        role: role, sandbox: sandbox)
                }
                print("Created \(sandbox ? "sandbox account" : "account") \(account.email) (\(account.id.uuidString))"
                    + (role == .customer ? "" : " with role \(role.rawValue)"))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let accounts = try await PeopleDirectory(database: runtime.database).accounts()
                print(Table(["EMAIL", "STATUS", "PURCHASES", "CREATED"], accounts.map {
                    [$0.email, $0.disabled ? "disabled" : "active", $0.sandbox ? "sandbox" : "production", $0.createdAt.map(Table.date) ?? "-"]
                }).render())
            }
        }
    }
}

extension AccountsCommand {
    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Set a new password, end the account's reset links and sign it out everywhere.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String
        @Option(help: "New password (at least 8 characters); prompted for when omitted.") var password: String?

        func run() async throws {
            let hash = try PasswordHashing.hash(try password ?? promptPassword())
            try await withRuntime(settings) { runtime in
                let account = try await PeopleDirectory(database: runtime.database).requireAccount(email: email)
                try await PeopleOperationError.failing {
                    try await PeopleOperations(runtime: runtime).setPassword(hash: hash, actor: .currentCLIUser, person: account)
                }
                print("New password set for \(account.email); its devices must sign in again")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an account: its tokens stop working at once (403).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await setDisabled(true, email: email, settings: settings)
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled account (it signs in again to get tokens).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await setDisabled(false, email: email, settings: settings)
        }
    }
}

/// Disables an account (revoking every token and web session it has) or enables it again.
private func setDisabled(_ disabled: Bool, email: String, settings: SettingsOptions) async throws {
    try await withRuntime(settings) { runtime in
        let account = try await PeopleDirectory(database: runtime.database).requireAccount(email: email)
        try await PeopleOperationError.failing {
            try await PeopleOperations(runtime: runtime).setDisabled(disabled, actor: .currentCLIUser, person: account)
        }
        print(disabled ? "Disabled \(account.email) and signed it out everywhere" : "Enabled \(account.email)")
    }
}

/// Reads a password without echo from the terminal, or a line from standard input when piped.
func promptPassword() throws -> String {
    if isatty(STDIN_FILENO) == 1, let raw = getpass("Password: ") {
        return String(cString: raw)
    }
    guard let line = readLine(strippingNewline: true), !line.isEmpty else {
        throw ValidationError("no password given: pass --password or type it when asked")
    }
    return line
}
