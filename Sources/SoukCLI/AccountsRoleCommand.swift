import ArgumentParser
import Foundation
import SoukApp
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
                let account = try await PeopleDirectory(database: runtime.database).requireAccount(email: email)
                let changed = try await PeopleOperationError.failing {
                    try await PeopleOperations(runtime: runtime).setRole(role, actor: .currentCLIUser, person: account)
                }
                guard let before = changed else {
                    print("\(account.email) already has the role \(role.rawValue)")
                    return
                }
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
                    let account = try await PeopleDirectory(database: runtime.database).requireAccount(email: email)
                    let wasOn = try await PeopleOperationError.failing {
                        try await PeopleOperations(runtime: runtime).resetTOTP(actor: .currentCLIUser, person: account)
                    }
                    guard wasOn else {
                        print("\(account.email) has no two-factor sign-in")
                        return
                    }
                    print("Two-factor sign-in is off for \(account.email)")
                }
            }
        }
    }
}
