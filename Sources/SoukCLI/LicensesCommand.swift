import ArgumentParser
import Foundation
import SoukApp
import SoukStore

extension AccountsCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an account: status, device limit, active installs and licenses.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let account = try await runtime.catalog.people.requireAccount(email: email)
                let accountID = account.id
                let store = LicenseStore(database: runtime.database)
                let devices = try await store.liveDevices(accountID: accountID)
                let limit = runtime.config.licensing.deviceLimit(for: account)
                let signedIn = try await runtime.tokens.devices(accountID: accountID)
                print("""
                email            \(account.email)
                status           \(account.disabled ? "disabled" : "active")
                device limit     \(limit == 0 ? "none" : String(limit))\(account.deviceLimit == nil ? " (server default)" : "")
                active installs  \(devices.count) device(s) with live licenses\(devices.isEmpty ? "" : ": " + devices.sorted().joined(separator: ", "))
                signed-in apps   \(signedIn.count)
                """)
                let licenses = try await store.list(accountID: accountID, limit: 50)
                if !licenses.isEmpty {
                    print("")
                    print(LicensesCommand.table(licenses))
                }
            }
        }
    }

    struct SetDeviceLimit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-device-limit", abstract: "Set how many devices an account may license at once (or 'default').")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Email address of the account.") var email: String
        @Option(help: "A number from 0 (no limit) to 1000, or 'default' for SOUK_DEVICE_LIMIT.") var limit: String

        func run() async throws {
            let value: Int?
            if limit == "default" {
                value = nil
            } else {
                // The range is the operation's to refuse (`PeopleOperations.setDeviceLimit`).
                guard let number = Int(limit) else { throw ValidationError("--limit must be a number (0–1000) or default") }
                value = number
            }
            try await withRuntime(settings) { runtime in
                let account = try await runtime.catalog.people.requireAccount(email: email)
                try await PeopleOperationError.failing {
                    try await PeopleOperations(runtime: runtime).setDeviceLimit(actor: .currentCLIUser, of: account, to: value)
                }
                print("Device limit of \(account.email): \(value.map { $0 == 0 ? "none" : String($0) } ?? "server default")")
            }
        }
    }
}

/// `souk licenses …`: the licenses issued to devices, and their revocation.
struct LicensesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "licenses", abstract: "List and revoke app licenses.", subcommands: [List.self, Revoke.self])

    static func table(_ licenses: [LicenseRecord]) -> String {
        let now = Date()
        return Table(["LICENSE", "APP", "VERSION", "DEVICE", "ISSUED", "EXPIRES", "STATE"], licenses.map { record in
            [String(record.licenseId), String(record.appleItemId), String(record.appleVersionId), record.deviceId,
             Table.date(record.issuedAt), Table.date(record.expiresAt),
             record.revokedAt != nil ? "revoked: \(record.revokedReason ?? "")" : record.expiresAt > now ? "live" : "expired"]
        }).render()
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List licenses, newest first.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only this account's.") var email: String?
        @Option(help: "Only this app's.") var appleItemId: String?
        @Option(help: "How many.") var limit: Int = 100

        func run() async throws {
            let app = try appleItemId.map { try parseAppleID($0, option: "--apple-item-id") }
            try await withRuntime(settings) { runtime in
                let accountID = try await email.asyncMap { try await runtime.catalog.people.requireAccount(email: $0).id }
                let licenses = try await LicenseStore(database: runtime.database).list(accountID: accountID, appleItemId: app, limit: max(1, limit))
                print(licenses.isEmpty ? "No licenses." : LicensesCommand.table(licenses))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke licenses by account, app, device or id: their next renewal is refused and the app stops launching when they expire.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The account's licenses.") var email: String?
        @Option(help: "The app's licenses.") var appleItemId: String?
        @Option(help: "The device's licenses.") var deviceId: String?
        @Option(help: "One license.") var licenseId: String?
        @Option(help: "Why (shown on the resolution page).") var reason: String = "revoked by the marketplace"

        func run() async throws {
            let app = try appleItemId.map { try parseAppleID($0, option: "--apple-item-id") }
            let license = try licenseId.map { try parseAppleID($0, option: "--license-id") }
            guard email != nil || app != nil || deviceId != nil || license != nil else {
                throw ValidationError("say which licenses: --email, --apple-item-id, --device-id or --license-id")
            }
            try await withRuntime(settings) { runtime in
                let accountID = try await email.asyncMap { try await runtime.catalog.people.requireAccount(email: $0).id }
                let count = try await MarketplaceOperations(runtime: runtime).revokeLicenses(
                    actor: .currentCLIUser, .init(accountID: accountID, appleItemId: app, deviceId: deviceId?.lowercased(), licenseId: license),
                    reason: reason)
                print("Revoked \(count) license(s).")
            }
        }
    }
}
