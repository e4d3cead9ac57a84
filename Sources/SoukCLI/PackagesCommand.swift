import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk packages …`: importing and making alternative distribution packages.
struct PackagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packages", abstract: "Import and make alternative distribution packages.",
        subcommands: [Import.self, MakeSample.self, SetKeyBlob.self, Withdraw.self, Reinstate.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a package (a folder or a zip with manifest.json, signature, variant/, delta/).")
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The package folder or zip file.") var path: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let upload: PackageUpload
                do {
                    upload = try await DeveloperOperations(runtime: runtime).uploadPackage(actor: .currentCLIUser, appleItemId: nil,
                                                                                         appleVersionId: nil, at: path)
                } catch DeveloperOperationError.invalid(let field, let problem) {
                    throw CommandFailure("package rejected: \(field == "package" ? path : field): \(problem)")
                }
                let (item, version) = (upload.version.appleItemId, upload.version.appleVersionId)
                guard upload.imported else {
                    print("Already imported \(item)/\(version): nothing changed")
                    return
                }
                print("Imported \(item)/\(version): \(upload.files) files, \(upload.bytes) bytes")
                print("  \(runtime.config.publicURL)/packages/\(item)/\(version)/")
            }
        }
    }

    struct MakeSample: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "make-sample", abstract: "Write a realistic sample package (two variants) for demos and tests.")
        @Option(help: "AppleItemID of the app.") var appleItemId: String
        @Option(help: "AppleVersionID of this version.") var appleVersionId: String
        @Option(help: "Bundle id of the app.") var bundleId: String
        @Option(help: "shortVersionString, e.g. 1.2.") var shortVersion: String
        @Option(help: "bundleVersion, e.g. 12.") var bundleVersion: String
        @Option(help: "Minimum iOS version, e.g. 17.0.") var minOs: String
        @Option(help: "Size of each variant file in bytes.") var variantSize: Int = 1 << 20
        @Option(help: "Folder to write the package into.") var out: String

        func run() async throws {
            guard let minimum = OSVersion(minOs) else { throw ValidationError("--min-os must look like 17.0, got '\(minOs)'") }
            guard variantSize >= 0, variantSize <= 64 << 30 else { throw ValidationError("--variant-size must be 0…64 GiB") }
            guard !shortVersion.isEmpty, !bundleVersion.isEmpty, !bundleId.isEmpty else {
                throw ValidationError("--short-version, --bundle-version and --bundle-id must not be empty")
            }
            let maker = SamplePackageMaker(
                appleItemId: try parseAppleID(appleItemId, option: "--apple-item-id"),
                appleVersionId: try parseAppleID(appleVersionId, option: "--apple-version-id"),
                bundleId: bundleId, shortVersion: shortVersion, bundleVersion: bundleVersion,
                minimumOS: minimum, variantSize: variantSize)
            let manifest = try maker.write(to: out)
            print("Wrote \(out): manifest.json, signature, \(manifest.variants.map(\.assetPath).joined(separator: ", "))")
        }
    }
}

extension PackagesCommand {
    /// Records a variant's `alternativeDistributionKeyBlob` by hand (the webhook stores them itself).
    struct SetKeyBlob: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-key-blob", abstract: "Record the license key blob of one package variant (by its assetPublicId).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The variant's assetPublicId, as devices send it in license requests.") var assetPublicId: String
        @Option(help: "AppleItemID of the app.") var appleItemId: String
        @Option(help: "AppleVersionID of the version.") var appleVersionId: String
        @Option(help: "The key blob (base64), as App Store Connect gives it.") var keyBlob: String

        func run() async throws {
            let item = try parseAppleID(appleItemId, option: "--apple-item-id")
            let version = try parseAppleID(appleVersionId, option: "--apple-version-id")
            guard !assetPublicId.isEmpty, assetPublicId.count <= 200 else { throw ValidationError("--asset-public-id must be 1–200 characters") }
            guard Data(base64Encoded: keyBlob) != nil else { throw ValidationError("--key-blob must be base64") }
            try await withRuntime(settings) { runtime in
                try await MarketplaceOperations(runtime: runtime).setKeyBlob(actor: .currentCLIUser, appleItemId: item, appleVersionId: version,
                                                                             assetPublicId: assetPublicId, keyBlob: keyBlob)
                print("Recorded the key blob of variant \(assetPublicId)")
            }
        }
    }
}

extension PackagesCommand {
    /// Stops offering one version: devices on it get a 404 failure, its package URLs answer 404,
    /// and updates never offer an older version in its place.
    struct Withdraw: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "withdraw", abstract: "Withdraw one version of an app (restore and updates answer 404 failures for it).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "AppleItemID of the app.") var appleItemId: String
        @Option(help: "AppleVersionID of the version.") var appleVersionId: String
        @Option(help: "Why, for operators (optional).") var reason: String?

        func run() async throws {
            let item = try parseAppleID(appleItemId, option: "--apple-item-id")
            let version = try parseAppleID(appleVersionId, option: "--apple-version-id")
            if let reason, reason.count > 500 { throw ValidationError("--reason must be at most 500 characters") }
            let changed = try await PackagesCommand.setWithdrawn(true, settings, appleItemId: item, appleVersionId: version, reason: reason ?? "")
            print(changed ? "Withdrew \(item)/\(version)" : "\(item)/\(version) was already withdrawn: nothing changed")
        }
    }

    /// Offers a withdrawn version again.
    struct Reinstate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reinstate", abstract: "Offer a withdrawn version of an app again.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "AppleItemID of the app.") var appleItemId: String
        @Option(help: "AppleVersionID of the version.") var appleVersionId: String

        func run() async throws {
            let item = try parseAppleID(appleItemId, option: "--apple-item-id")
            let version = try parseAppleID(appleVersionId, option: "--apple-version-id")
            let changed = try await PackagesCommand.setWithdrawn(false, settings, appleItemId: item, appleVersionId: version)
            print(changed ? "Reinstated \(item)/\(version)" : "\(item)/\(version) was not withdrawn: nothing changed")
        }
    }
}

extension PackagesCommand {
    /// Withdraws or offers again a version through the operation both consoles use (it writes the
    /// audit entry); answers whether anything changed; refusals become the command's message.
    static func setWithdrawn(_ withdrawn: Bool, _ settings: SettingsOptions, appleItemId: UInt64, appleVersionId: UInt64,
                             reason: String = "") async throws -> Bool {
        try await withRuntime(settings) { runtime in
            do {
                return try await SetVersionWithdrawn(services: DeveloperServices(runtime: runtime, now: Date.init))(
                    withdrawn, actor: .currentCLIUser, appleItemId: appleItemId, appleVersionId: appleVersionId, reason: reason)
            } catch let error as DeveloperOperationError {
                throw CommandFailure(error.description)
            }
        }
    }
}
