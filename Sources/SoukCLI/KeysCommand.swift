import ArgumentParser
import Crypto
import Foundation
import SoukApp
import SoukStore

/// `souk keys …`: public keys and certificate fingerprints (never private material), and the
/// rotation of install verification keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Show and rotate the marketplace's signing keys.",
        subcommands: [Show.self, Rotate.self, Retire.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print public keys and certificate fingerprints.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let keys = runtime.keys
                let published = try await runtime.installVerificationKeys.store.publishedKeys(retiredAfter: .distantPast)
                print("Install verification keys (ES256)")
                for record in published.reversed() {
                    let owner = record.owner == InstallVerificationKeyRecord.marketplaceOwner ? "marketplace" : "app \(record.owner) (web distribution)"
                    let state = record.retiredAt.map { "retired \(ISO8601DateFormatter().string(from: $0))" } ?? "current"
                    print("  kid \(record.kid)  \(owner)  \(state)")
                    if record.retiredAt == nil { print(record.publicKeyPEM.indented(4)) }
                }
                print("""
                License encryption certificate (RSA-3072)
                  SHA-256          \(SoukKeys.fingerprint(keys.licenseEncryptionCertificateDER))
                License signing certificate (ES256)
                  SHA-256          \(SoukKeys.fingerprint(keys.licenseSigningCertificateDER))
                Key folder: \(runtime.config.keysDir)
                """)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new install verification key and sign with it from now on.",
            discussion: """
            The previous key stays in /.well-known/jwks.json until every token it signed has expired. \
            Register the printed public key in App Store Connect and pass the key id it gives with \
            --key-id (or later with `souk marketplace set --key-id`). With --apple-item-id the key \
            belongs to that app, which enters web-distribution mode: its tokens carry its own \
            AppleItemID as the issuer.
            """)
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Web distribution: the app that signs with its own key.") var appleItemId: String?
        @Option(help: "Key id App Store Connect gave the key (default: derived from the key).") var keyId: String?

        func run() async throws {
            let owner = try appleItemId.map { try parseAppleID($0, option: "--apple-item-id") } ?? InstallVerificationKeyRecord.marketplaceOwner
            try await withRuntime(settings) { runtime in
                let record: InstallVerificationKeyRecord
                do {
                    record = try await RotateInstallVerificationKey(runtime: runtime)(actor: .currentCLIUser, owner: owner, kid: keyId)
                } catch let error as DeveloperOperationError {
                    throw CommandFailure(error.description)
                }
                print("""
                New install verification key \(record.kid) for \(owner == 0 ? "the marketplace" : "app \(owner)"); it signs from now on.
                Public key to register in App Store Connect:
                \(record.publicKeyPEM.indented(2))
                """)
            }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End web distribution for an app: its tokens are signed by the marketplace again.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app whose own key is retired.") var appleItemId: String

        func run() async throws {
            let owner = try parseAppleID(appleItemId, option: "--apple-item-id")
            try await withRuntime(settings) { runtime in
                try await MarketplaceOperations(runtime: runtime).retireAppKey(actor: .currentCLIUser, appleItemId: owner)
                print("App \(owner) signs with the marketplace key again; its own key stays published until its tokens expire.")
            }
        }
    }
}

extension String {
    fileprivate func indented(_ spaces: Int) -> String {
        split(separator: "\n").map { String(repeating: " ", count: spaces) + $0 }.joined(separator: "\n")
    }
}
