import Crypto
import Foundation
import SoukCore
import _CryptoExtras

/// An uploaded store credential checked before it is sealed: an App Store key must be an EC P-256
/// private key (PEM, as Apple's `.p8`), a Google service account a JSON key file of type
/// `service_account` with `client_email` and an RSA `private_key`, a shared secret, partner key or
/// token one line of 8 to 4,096 characters. A refusal names the problem (never the content).
package struct StoreCredentialUpload: Sendable, Equatable {
    /// The secret as it will be sealed.
    package var secret: String
    /// What may be shown of it.
    package var hint: String

    /// Larger than any credential a store issues.
    package static let maxBytes = 64 << 10

    package static func check(_ bytes: [UInt8], kind: StoreCredentialKind, filename: String? = nil) throws(DeveloperOperationError) -> StoreCredentialUpload {
        guard !bytes.isEmpty else { throw refusal("The file is empty.") }
        guard bytes.count <= maxBytes else { throw refusal("The file is larger than \(maxBytes) bytes: not a store credential.") }
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw refusal("The file is not UTF-8 text.") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch kind {
        case .appleServerAPIKey:
            return try appleKey(trimmed, filename: filename)
        case .googleServiceAccount:
            return try googleServiceAccount(trimmed)
        case .googleRTDNToken, .amazonSharedSecret, .rokuPartnerAPIKey:
            guard (8...4096).contains(trimmed.count) else { throw refusal("A \(kind.summary) has 8 to 4,096 characters; this has \(trimmed.count).") }
            guard !trimmed.contains(where: \.isNewline) else { throw refusal("A \(kind.summary) is one line of text.") }
            return StoreCredentialUpload(secret: trimmed, hint: "ends with " + String(trimmed.suffix(4)))
        }
    }

    /// Apple's `.p8`: the hint is the key id of the file's name (`AuthKey_<KEY ID>.p8`) when it
    /// has one, and a digest of the public key.
    static func appleKey(_ pem: String, filename: String?) throws(DeveloperOperationError) -> StoreCredentialUpload {
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw refusal("The file is not an EC P-256 private key in PEM (an App Store .p8 key).")
        }
        let publicKey = "public key " + Digest.hex(SHA256.hash(data: key.publicKey.derRepresentation).prefix(4))
        guard let filename, filename.hasPrefix("AuthKey_"), filename.hasSuffix(".p8") else {
            return StoreCredentialUpload(secret: pem, hint: publicKey)
        }
        let keyId = filename.dropFirst("AuthKey_".count).dropLast(".p8".count)
        guard (1...20).contains(keyId.count), keyId.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            return StoreCredentialUpload(secret: pem, hint: publicKey)
        }
        return StoreCredentialUpload(secret: pem, hint: "key \(keyId), \(publicKey)")
    }

    /// Google's service-account key file: the hint is its `client_email`.
    static func googleServiceAccount(_ json: String) throws(DeveloperOperationError) -> StoreCredentialUpload {
        struct KeyFile: Decodable {
            var type: String?
            var client_email: String?
            var private_key: String?
        }
        let file: KeyFile
        do { file = try JSONDecoder().decode(KeyFile.self, from: Data(json.utf8)) } catch {
            throw refusal("The file is not a JSON object (a Google service account's key file).")
        }
        guard file.type == "service_account" else { throw refusal("The key file's type is not \"service_account\".") }
        guard let email = file.client_email?.trimmingCharacters(in: .whitespaces), !email.isEmpty, email.count <= 320 else {
            throw refusal("The key file has no client_email.")
        }
        guard let pem = file.private_key, !pem.isEmpty else { throw refusal("The key file has no private_key.") }
        do { _ = try _RSA.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw refusal("The key file's private_key is not an RSA private key in PEM.")
        }
        return StoreCredentialUpload(secret: json, hint: email)
    }

    static func refusal(_ problem: String) -> DeveloperOperationError { .invalid(field: "file", problem) }
}
