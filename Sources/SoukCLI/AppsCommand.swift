import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

extension AccessPolicy: ExpressibleByArgument {}

/// `souk apps …`: the catalog.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Manage the app catalog.",
        subcommands: [Create.self, List.self, Show.self, SetDeveloper.self, SetIcon.self, Media.self, Feature.self, SetPrice.self, Override.self, Takedown.self, Remove.self, Reinstate.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an app to the catalog.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app's AppleItemID.") var appleItemId: String
        @Option(help: "The app's bundle id.") var bundleId: String
        @Option(help: "Display name.") var name: String
        @Option(help: "Subtitle.") var subtitle = ""
        @Option(help: "Description.") var description = ""
        @Option(help: "The developer's name as the storefront shows it (default: the organisation's name).") var developerName = ""
        @Option(help: "The developer organisation that owns the app (souk developers list).") var developer: String?
        @Option(help: "public (anyone may install) or account (a signed-in account).") var access: AccessPolicy = .public
        @Option(help: "A PNG icon (at most 2 MiB).") var icon: String?

        func run() async throws {
            let id = try parseAppleID(appleItemId, option: "--apple-item-id")
            try await withRuntime(settings) { runtime in
                let services = DeveloperServices(runtime: runtime, now: { Date() })
                let app: AppRecord
                do {
                    app = try await CreateApp(services: services)(NewApp(
                        appleItemId: id, bundleId: bundleId, name: name, subtitle: subtitle, description: description,
                        developerName: developerName, access: access), developer: developer, actor: .currentCLIUser)
                    if let icon { try await SetAppIcon(services: services)(actor: .currentCLIUser, appleItemId: id, pngAt: icon) }
                } catch let error as DeveloperOperationError {
                    throw CommandFailure(error.description)
                }
                print("Created app \(app.appleItemId) \(app.bundleId) \"\(app.name)\" (access: \(app.access.rawValue))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps in the catalog.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let apps = try await runtime.catalog.appRecords()
                print(Table(["APPLE ITEM ID", "BUNDLE ID", "NAME", "ACCESS", "PRICE", "AVAILABILITY"], apps.map {
                    [String($0.appleItemId), $0.bundleId, $0.name, $0.access.rawValue, $0.pricing.summary, $0.availability.summary]
                }).render())
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one app with its versions and package files.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection

        func run() async throws {
            let id = try selection.appleItemId()
            try await withRuntime(settings) { runtime in
                let app = try await runtime.catalog.appRecord(appleItemId: id)
                var lines = [
                    "\(app.name) (\(app.bundleId))",
                    "  AppleItemID   \(app.appleItemId)",
                    "  developer     \(app.developerName.isEmpty ? "-" : app.developerName)",
                    "  subtitle      \(app.subtitle.isEmpty ? "-" : app.subtitle)",
                    "  access        \(app.access.rawValue)",
                    "  price         \(app.pricing.summary)",
                    "  icon          \(app.iconSHA256 == nil ? "-" : "\(runtime.config.publicURL)/apps/\(app.appleItemId)/icon")",
                    "  category      \(app.appCategory?.displayName ?? "-")",
                    "  screenshots   \(AppMedia.Family.allCases.map { "\(app.media?.screenshots(for: $0).count ?? 0) \($0.rawValue)" }.joined(separator: ", "))",
                    "  featured      \(app.featuredOrder.map { "order \($0)" } ?? "-")",
                    "  availability  \(app.availability.summary)\(app.takedownReason.map { " (\($0))" } ?? "")",
                ]
                let versions = try await runtime.catalog.versions(of: app)
                lines.append("  versions      \(versions.isEmpty ? "none imported" : "")")
                for version in versions {
                    let minimums = version.minimumOS.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)+" }.joined(separator: ", ")
                    lines.append("    \(version.appleVersionId)  \(version.shortVersionString) (\(version.bundleVersion))  \(version.platforms.joined(separator: ","))  \(minimums)  released \(Table.date(version.releaseDate))")
                    lines.append("      \(runtime.config.publicURL)/packages/\(app.appleItemId)/\(version.appleVersionId)/")
                    for file in try await runtime.catalog.files(of: version) {
                        lines.append("        \(file.path)  \(file.size) bytes  sha256 \(file.blobSHA256)")
                    }
                }
                print(lines.joined(separator: "\n"))
            }
        }
    }

    struct SetIcon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-icon", abstract: "Set an app's icon (a PNG, at most 2 MiB).")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(help: "The PNG file.") var icon: String

        func run() async throws {
            let id = try selection.appleItemId()
            try await withRuntime(settings) { runtime in
                do {
                    try await SetAppIcon(services: DeveloperServices(runtime: runtime, now: Date.init))(
                        actor: .currentCLIUser, appleItemId: id, pngAt: icon)
                } catch let error as DeveloperOperationError {
                    throw CommandFailure(error.description)
                }
                print("Icon set: \(runtime.config.publicURL)/apps/\(id)/icon")
            }
        }
    }

    struct Override: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give one app its own restore/updates/license endpoints in /.well-known/marketplace-kit.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(help: "The app's restore URL.") var restoreUrl: String?
        @Option(help: "The app's updates URL.") var updatesUrl: String?
        @Option(help: "Hours between update checks (at least 24).") var pollingInterval: Int?
        @Option(help: "dynamicLicenseURL.") var licenseDynamicUrl: String?
        @Option(help: "licenseRenewalURL.") var licenseRenewalUrl: String?
        @Option(help: "licenseResolutionURL.") var licenseResolutionUrl: String?
        @Option(help: "signingCertificateURL.") var licenseSigningCertificateUrl: String?
        @Option(help: "encryptionCertificateURL.") var licenseEncryptionCertificateUrl: String?
        @Flag(help: "Remove the app's override.") var clear = false

        /// The options as an override, for `AppOverride.problem` (the operation's own rule) before
        /// anything is opened.
        var given: AppOverride {
            AppOverride(restoreURL: restoreUrl, updatesURL: updatesUrl, pollingIntervalHours: pollingInterval,
                        dynamicLicenseURL: licenseDynamicUrl, licenseRenewalURL: licenseRenewalUrl,
                        licenseResolutionURL: licenseResolutionUrl, signingCertificateURL: licenseSigningCertificateUrl,
                        encryptionCertificateURL: licenseEncryptionCertificateUrl)
        }

        /// Each `.well-known` field's option.
        static let options = [
            "restore": "--restore-url", "updatesURL": "--updates-url", "pollingInterval": "--polling-interval",
            "dynamicLicenseURL": "--license-dynamic-url", "licenseRenewalURL": "--license-renewal-url",
            "licenseResolutionURL": "--license-resolution-url", "signingCertificateURL": "--license-signing-certificate-url",
            "encryptionCertificateURL": "--license-encryption-certificate-url",
        ]

        func validate() throws {
            if let problem = given.problem { throw ValidationError("\(Self.options[problem.field] ?? problem.field) \(problem.message)") }
        }

        func run() async throws {
            let id = try selection.appleItemId()
            try await withRuntime(settings) { runtime in
                let operations = MarketplaceOperations(runtime: runtime)
                if clear {
                    let removed = try await operations.setOverride(actor: .currentCLIUser, appleItemId: id, nil)
                    print(removed ? "Removed the override of \(id)" : "App \(id) had no override")
                    return
                }
                var override = try await runtime.catalog.appOverride(appleItemId: id)
                if let restoreUrl { override.restoreURL = restoreUrl }
                if let updatesUrl { override.updatesURL = updatesUrl }
                if let pollingInterval { override.pollingIntervalHours = pollingInterval }
                if let licenseDynamicUrl { override.dynamicLicenseURL = licenseDynamicUrl }
                if let licenseRenewalUrl { override.licenseRenewalURL = licenseRenewalUrl }
                if let licenseResolutionUrl { override.licenseResolutionURL = licenseResolutionUrl }
                if let licenseSigningCertificateUrl { override.signingCertificateURL = licenseSigningCertificateUrl }
                if let licenseEncryptionCertificateUrl { override.encryptionCertificateURL = licenseEncryptionCertificateUrl }
                try await operations.setOverride(actor: .currentCLIUser, appleItemId: id, override)
                print("Override saved for \(id): \(runtime.config.publicURL)/.well-known/marketplace-kit")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark an app as removed by its developer: devices get 404 failures and its packages stop being served.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection

        func run() async throws {
            let id = try selection.appleItemId()
            let change = try await AppsCommand.setAvailability(.removedByDeveloper, settings, appleItemId: id)
            print("Marked \(change.appleItemId) \(change.bundleId) as removed by its developer")
        }
    }

    struct Takedown: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take an app down: devices get 404 failures and its packages stop being served.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(help: "Why, for the record.") var reason: String?

        func run() async throws {
            let id = try selection.appleItemId()
            let change = try await AppsCommand.setAvailability(.takenDown, settings, appleItemId: id, reason: reason)
            print("Took down \(change.appleItemId) \(change.bundleId)")
        }
    }

    struct Reinstate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a taken-down or removed app available again.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection

        func run() async throws {
            let id = try selection.appleItemId()
            let change = try await AppsCommand.setAvailability(.available, settings, appleItemId: id)
            print("Reinstated \(change.appleItemId) \(change.bundleId)")
        }
    }
}

extension AppsCommand {
    /// Changes an app's availability through the operation the console uses (it writes the audit
    /// entry); its refusals become the command's message.
    static func setAvailability(_ availability: Availability, _ settings: SettingsOptions, appleItemId: UInt64,
                                reason: String? = nil) async throws -> SetAppAvailability.Change {
        try await withRuntime(settings) { runtime in
            do {
                return try await SetAppAvailability(services: DeveloperServices(runtime: runtime, now: Date.init))(
                    availability, actor: .currentCLIUser, appleItemId: appleItemId, reason: reason)
            } catch let error as DeveloperOperationError {
                throw CommandFailure(error.description)
            }
        }
    }
}

/// `--apple-item-id N`: the app an operator command acts on.
struct AppSelection: ParsableArguments {
    @Option(name: .customLong("apple-item-id"), help: "The app's AppleItemID.") var text: String

    func appleItemId() throws -> UInt64 {
        try parseAppleID(text, option: "--apple-item-id")
    }
}
