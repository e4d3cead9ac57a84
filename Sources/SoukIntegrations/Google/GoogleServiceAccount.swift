import Foundation
import JWTKit
import SoukCore

/// The operator's Google service account, read from the JSON key file Play Console's Cloud project
/// hands out. Only what the JWT bearer grant needs is kept: the key file's `token_uri` is ignored on
/// purpose — a key file that could redirect the signed assertion elsewhere would leak a grant, so the
/// token URL always comes from `StoreEndpoints.googleOAuthTokenURL`.
public struct GoogleServiceAccount: Sendable {
    public var clientEmail: String
    /// The key's id (`private_key_id`), sent as the assertion's `kid`; nil in hand-made key files.
    public var privateKeyId: String?
    let privateKey: Insecure.RSA.PrivateKey

    /// Identifies the account and key for the access-token cache: a rotated key gets its own token.
    var cacheKey: String { clientEmail + "\u{1F}" + (privateKeyId ?? "") }

    struct KeyFile: Decodable {
        var type: String?
        var client_email: String?
        var private_key: String?
        var private_key_id: String?
    }

    /// Reads a service-account key file. Every failure is `notConfigured`: it is the operator's file that
    /// must change. The error never quotes the file (it holds the private key).
    public static func parse(_ bytes: [UInt8]) throws(StoreFault) -> GoogleServiceAccount {
        let file: KeyFile
        do { file = try JSONDecoder().decode(KeyFile.self, from: Data(bytes)) } catch {
            throw StoreFault(.notConfigured, "The Google service-account key file is not a JSON object.")
        }
        if let type = file.type, type != "service_account" {
            throw StoreFault(.notConfigured, "The Google key file is of type \"\(type.prefix(40))\", not \"service_account\".")
        }
        guard let email = file.client_email?.trimmingCharacters(in: .whitespaces), !email.isEmpty else {
            throw StoreFault(.notConfigured, "The Google service-account key file has no client_email.")
        }
        guard let pem = file.private_key, !pem.isEmpty else {
            throw StoreFault(.notConfigured, "The Google service-account key file has no private_key.")
        }
        let key: Insecure.RSA.PrivateKey
        do { key = try Insecure.RSA.PrivateKey(pem: pem) } catch {
            throw StoreFault(.notConfigured, "The private_key of the Google service account \(email) is not an RSA private key in PEM.")
        }
        let keyId = file.private_key_id.flatMap { $0.isEmpty ? nil : $0 }
        return GoogleServiceAccount(clientEmail: email, privateKeyId: keyId, privateKey: key)
    }
}
