import ArgumentParser
import Foundation

/// `souk-device`: a simulated iPhone for any marketplace server (docs/souk-device.md).
public struct SoukDeviceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "souk-device",
        abstract: "A simulated iPhone that installs, restores and updates apps from an alternative marketplace.",
        subcommands: [Install.self, Restore.self, Updates.self, Licenses.self, Show.self, Conform.self, Content.self,
                      Browse.self, InstallFromApp.self, TVSignInCommand.self])

    public init() {}
}

/// The simulated device's options, shared by every command.
struct DeviceOptions: ParsableArguments {
    @Option(help: "Folder holding the simulated device.") var state: String = "./souk-device-state"
    @Option(help: "Platform: iOS or iPadOS.") var platform: String?
    @Option(help: "OS version, e.g. 17.4.") var os: String?
    @Option(help: "Model identifier, e.g. iPhone15,2 or iPad14,1.") var model: String?
    @Flag(help: "Print every HTTP exchange.") var verbose = false

    /// Opens the device, runs `body`, saves the state; faults print their iOS name and exit 1.
    func run<T>(_ body: (Device) async throws -> T) async throws -> T {
        if let platform, !["ios", "ipados"].contains(platform.lowercased()) { throw ValidationError("--platform must be iOS or iPadOS") }
        let store = DeviceStore(folder: state)
        return try await Self.withHTTP(verbose: verbose) { http in
            let device = Device(store: store, state: try store.load(platform: platform, osVersion: os, model: model), http: http, output: DeviceOutput())
            let result = try await body(device)
            try device.save()
            return result
        }
    }

    /// Runs `body` with an HTTP client that is shut down afterwards; a fault prints its iOS name and exits 1.
    static func withHTTP<T>(verbose: Bool, _ body: (DeviceHTTP) async throws -> T) async throws -> T {
        let http = DeviceHTTP(verbose: verbose)
        do {
            let result = try await body(http)
            await http.shutdown()
            return result
        } catch let error as DeviceError {
            await http.shutdown()
            FileHandle.standardError.write(Data("error: \(error.name.rawValue): \(error.message)\n".utf8))
            throw ExitCode(1)
        } catch {
            await http.shutdown()
            throw error
        }
    }
}

/// Where credentials come from: flags, else a prompt when a terminal is attached.
struct CredentialOptions: ParsableArguments {
    @Option(help: "Account email for signing in again.") var email: String?
    @Option(help: "Password for signing in again (prompted for when omitted on a terminal).") var password: String?

    func credentials() -> (email: String, password: String)? {
        guard let email else { return nil }
        if let password { return (email, password) }
        guard isatty(0) != 0, let typed = getpass("Password for \(email): ") else { return nil }
        return (email, String(cString: typed))
    }
}

extension SoukDeviceCommand {
    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Install from a marketplace-kit://install?… link.")
        @OptionGroup var device: DeviceOptions
        @Option(help: "The page that showed the link; its host must be the package's.") var referrer: String?
        @Argument(help: "The link.") var link: String

        func run() async throws {
            try await device.run { device in
                let parsed = try Device.parseLink(link, referrer: referrer)
                let app = try await device.install(link: parsed)
                print("installed \(app.appleItemId) \(app.appleVersionId) \(app.bundleId) \(app.shortVersionString)")
                // The dtype of the restore item's token (the one the install used), then the link's.
                print("dtype \(app.dtype ?? "?")")
                print("link dtype \(app.linkDtype ?? "?")")
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What a device restored from a backup does: restore every installed app.")
        @OptionGroup var device: DeviceOptions
        @OptionGroup var credentials: CredentialOptions
        @Flag(help: "Forget the tokens first (a restore without them).") var forgetTokens = false

        func run() async throws {
            try await device.run { device in
                device.credentials = credentials.credentials()
                let outcome = try await device.restore(forgetTokens: forgetTokens)
                for app in outcome.installed { print("restored \(app.appleItemId) \(app.appleVersionId) \(app.bundleId) dtype \(app.dtype ?? "?")") }
                for failure in outcome.failures { print(failure) }
            }
        }
    }

    struct Updates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The automatic update check.")
        @OptionGroup var device: DeviceOptions
        @Flag(help: "Check even if the polling interval has not passed.") var force = false

        func run() async throws {
            try await device.run { device in
                let outcome = try await device.updates(force: force)
                for app in outcome.installed { print("updated \(app.appleItemId) to \(app.appleVersionId) \(app.shortVersionString)") }
                for failure in outcome.failures { print(failure) }
                if let skipped = outcome.skipped { print(skipped) }
            }
        }
    }

    struct Licenses: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Licenses of the installed apps.", subcommands: [Renew.self])

        struct Renew: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The daily renewal of licenses that expire within 24 hours.")
            @OptionGroup var device: DeviceOptions
            @Flag(help: "Renew every license, not only those about to expire.") var all = false

            func run() async throws {
                try await device.run { device in
                    let result = try await device.renewLicenses(all: all)
                    for id in result.renewed { print("renewed \(id)") }
                    for id in result.ineligible { print("ineligible \(id)") }
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the simulated device's state.")
        @OptionGroup var device: DeviceOptions

        func run() async throws {
            try await device.run { device in
                let state = device.state
                print("device \(state.deviceId)  \(state.model)  \(state.platform) \(state.osVersion)")
                for app in state.installs {
                    print("app \(app.appleItemId) \(app.appleVersionId) \(app.bundleId) \(app.shortVersionString) from \(app.domain)\(app.account.map { " as \($0)" } ?? "") dtype \(app.dtype ?? "?")")
                }
                for license in state.licenses {
                    print("license \(license.licenseId) app \(license.appleItemId) until \(license.expiresAt.map { ISO8601DateFormatter().string(from: $0) } ?? "?")")
                }
            }
        }
    }
}

extension SoukDeviceCommand {
    struct Conform: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the conformance checklist against any marketplace server; exit 0 only if every check passes.")
        @Argument(help: "The marketplace's base URL (where /.well-known/marketplace-kit is).") var baseURL: String
        @Option(help: "AppleItemID of an available public app with a version for --os.") var publicApp: String?
        @Option(help: "AppleItemID of an available app that needs an account.") var gatedApp: String?
        @Option(help: "An account to sign in with (the login-flow check).") var email: String?
        @Option(help: "Its password.") var password: String?
        @Option(help: "OS version the requests name.") var os: String = "18.0"
        @Flag(help: "Print every HTTP exchange.") var verbose = false
        @Flag(help: "Count skipped checks (missing flags) as failures.") var strict = false

        func run() async throws {
            var options = Conformance.Options(base: baseURL)
            options.publicApp = try publicApp.map { try Self.id($0, "--public-app") }
            options.gatedApp = try gatedApp.map { try Self.id($0, "--gated-app") }
            options.email = email
            options.password = password
            options.osVersion = os
            let http = DeviceHTTP(verbose: verbose)
            let conformance = Conformance(http: http, options: options)
            let passed = await conformance.run()
            await http.shutdown()
            print(conformance.table)
            let failed = conformance.results.filter { $0.problem != nil && !$0.skipped }.count
            let skipped = conformance.results.filter(\.skipped).count
            print("\(conformance.results.count - failed - skipped) passed, \(failed) failed, \(skipped) skipped"
                  + (skipped > 0 ? " (give --public-app, --gated-app, --email and --password to run them)" : ""))
            if !passed || (strict && skipped > 0) { throw ExitCode(1) }
        }

        static func id(_ text: String, _ option: String) throws -> UInt64 {
            guard let id = UInt64(text), id > 0 else { throw ValidationError("\(option) must be an AppleItemID") }
            return id
        }
    }
}

extension SoukDeviceCommand {
    /// `souk-device content download|cancel`: hosted content of an in-app product (StoreKit's “In-App Purchasing” guide's download states).
    struct Content: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hosted content of in-app products.", subcommands: [Download.self, Cancel.self])

        struct Download: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Download (or resume) a product's hosted content: waiting, active with progress, paused, finished (SHA-256 checked), failed.")
            @Argument(help: "…/commerce/<app>/content/<productId>[/<contentVersion>]") var url: String
            @Option(help: "The account's access token (entitled to the product).") var token: String
            @Option(help: "Folder holding the simulated device (downloads in progress live in its content/).") var state: String = "./souk-device-state"
            @Option(help: "Where the finished zip goes.") var out: String
            @Option(help: "Pause once this many bytes are on disk (as an interruption would).") var stopAfterBytes: Int64?
            @Flag(help: "Print every HTTP exchange.") var verbose = false

            func run() async throws {
                let result = try await DeviceOptions.withHTTP(verbose: verbose) { http in
                    try await ContentDownload(http: http, stateFolder: state, say: { DeviceOutput().say($0) })
                        .run(url, token: token, out: out, stopAfter: stopAfterBytes)
                }
                // Paused (interrupted): exit 2, run again to resume.
                guard let path = result.path else { throw ExitCode(2) }
                print(path)
            }
        }

        struct Cancel: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Cancel a download in progress: its partial file is removed.")
            @Argument(help: "…/commerce/<app>/content/<productId>[/<contentVersion>]") var url: String
            @Option(help: "Folder holding the simulated device.") var state: String = "./souk-device-state"

            func run() async throws {
                let http = DeviceHTTP(verbose: false)
                let cancelled = try ContentDownload(http: http, stateFolder: state, say: { DeviceOutput().say($0) }).cancel(url, version: nil)
                await http.shutdown()
                if !cancelled { print("No download of \(url) in progress.") }
            }
        }
    }
}

