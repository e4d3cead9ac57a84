import ArgumentParser
import Foundation
import SoukCore
import SoukIntegrations

extension AppleCommand {
    /// `souk apple sign-offer`: sign a promotional offer exactly as `POST /commerce/<app>/offers/signature`
    /// does, with a key file given here (no database, no eligibility check), and print the answer's
    /// JSON. For operators checking a key, and for the cross-check against Apple's own library
    /// (`scripts/apple-verdicts.sh`).
    struct SignOffer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-offer",
            abstract: "Sign a promotional offer (StoreKit 2 JWS and StoreKit 1 signature) with a key file; prints JSON.")

        @Option(help: "The app's bundle id.") var bundleId: String
        @Option(help: "The offer key's id.") var keyId: String
        @Option(help: "The issuer id of the key (App Store Connect).") var issuerId: String
        @Option(help: "The offer key file (.p8, PEM).") var keyPath: String
        @Option(help: "The App Store product identifier.") var productId: String
        @Option(help: "The offer identifier of App Store Connect.") var offerId: String
        @Option(help: "StoreKit 1's applicationUsername (default empty).") var applicationUsername = ""
        @Option(help: "A transaction id of the customer for StoreKit 2's JWS (optional).") var transactionId: String?
        @Option(help: "The nonce, a UUID (default: a random one).") var nonce: String?
        @Option(help: "The timestamp in milliseconds since 1970 (default: now).") var timestamp: Int64?

        func validate() throws {
            if let nonce, UUID(uuidString: nonce) == nil { throw ValidationError("--nonce must be a UUID") }
        }

        func run() async throws {
            let pem: String
            do { pem = try SecretReference.path(keyPath).resolve() } catch { throw ValidationError("\(error)") }
            let signer: PromotionalOfferSigner
            do { signer = try PromotionalOfferSigner(bundleId: bundleId, keyId: keyId, issuerId: issuerId, privateKeyPEM: pem) } catch {
                throw ValidationError("\(error)")
            }
            let milliseconds = timestamp ?? Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
            let signed = try signer.sign(PromotionalOfferSigner.Offer(productId: productId, offerId: offerId, applicationUsername: applicationUsername,
                                                                      transactionId: transactionId),
                                         nonce: nonce.flatMap(UUID.init(uuidString:)) ?? UUID(), timestamp: milliseconds)
            let document: [String: Any] = ["signatureV2": signed.signatureV2, "keyIdentifier": signed.keyIdentifier, "nonce": signed.nonce,
                                           "timestamp": signed.timestamp, "signature": signed.signature]
            let json = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: json, as: UTF8.self))
        }
    }
}
