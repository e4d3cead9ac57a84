import ArgumentParser
import Crypto
import Foundation

/// `souk keys show`: public keys and certificate fingerprints (never private material).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Show the marketplace's public keys.", subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print public keys and certificate fingerprints.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let keys = runtime.keys
                let marketplace = try await runtime.catalog.marketplace(defaultKeyId: keys.installVerificationKeyId)
                print("""
                Install verification key (ES256)
                  key id (kid)     \(marketplace.installVerificationKeyId)\(marketplace.installVerificationKeyId == keys.installVerificationKeyId ? "" : " (derived: \(keys.installVerificationKeyId))")
                \(keys.installVerificationKey.publicKey.pemRepresentation.indented)
                License encryption certificate (RSA-3072)
                  SHA-256          \(SoukKeys.fingerprint(keys.licenseEncryptionCertificateDER))
                License signing certificate (ES256)
                  SHA-256          \(SoukKeys.fingerprint(keys.licenseSigningCertificateDER))
                Key folder: \(runtime.config.keysDir)
                """)
            }
        }
    }
}

extension String {
    fileprivate var indented: String {
        split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }
}
