import ArgumentParser
import Foundation
import SoukCore
import SoukStore

extension AccountRole: ExpressibleByArgument {}

extension AccountsCommand {
    /// `souk accounts set-role`: who may use the operator console.
    struct SetRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-role", abstract: "Set an account's role: customer, support (looks, grants) or operator (everything).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String
        @Option(help: "customer, support or operator.") var role: AccountRole

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let account = try await runtime.catalog.requireAccount(email: email)
                let id = try account.requireID()
                guard let before = try await PeopleDirectory(database: runtime.database).setRole(role, account: id) else {
                    print("\(account.email) already has the role \(role.rawValue)")
                    return
                }
                try await AuditLog(database: runtime.database).record(
                    actor: AuditLog.cliActor, action: .accountSetRole, target: "account:\(id.uuidString.lowercased())",
                    before: ["email": account.email, "role": before.rawValue], after: ["email": account.email, "role": role.rawValue])
                print("\(account.email) is now \(role.rawValue) (was \(before.rawValue))")
            }
        }
    }

    /// `souk accounts totp …`: the operator's way back in.
    struct TOTPCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "totp", abstract: "Two-factor sign-in of an account.",
                                                        subcommands: [Reset.self])

        struct Reset: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Turn two-factor sign-in off and forget its secret and recovery codes (the account enrols again at /admin/security).")
            @OptionGroup var settings: SettingsOptions
            @Option(help: "Email address of the account.") var email: String

            func run() async throws {
                try await withRuntime(settings) { runtime in
                    let account = try await runtime.catalog.requireAccount(email: email)
                    let id = try account.requireID()
                    let store = TOTPStore(database: runtime.database, keysDir: runtime.config.keysDir)
                    guard try await store.reset(account: id) else {
                        print("\(account.email) has no two-factor sign-in")
                        return
                    }
                    try await AuditLog(database: runtime.database).record(
                        actor: AuditLog.cliActor, action: .accountTOTPReset, target: "account:\(id.uuidString.lowercased())",
                        before: ["email": account.email, "totp": account.totpEnabled ? "on" : "enrolling"],
                        after: ["email": account.email, "totp": "off"])
                    print("Two-factor sign-in is off for \(account.email)")
                }
            }
        }
    }
}
