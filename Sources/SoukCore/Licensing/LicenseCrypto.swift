import Crypto
import Foundation
import _CryptoExtras

/// The envelope of spec §3.1: `licenseKey` is RSA-OAEP-SHA256 (MGF1-SHA256) with the encryption
/// certificate's key, 384 bytes for RSA-3072, decrypting to 32 bytes — AES-128 key (0–15) and IV
/// (16–31) — that decrypt `licenseRequest` (AES-128-CBC, PKCS#7).
public enum LicenseCrypto {
    public struct Undecryptable: Error, CustomStringConvertible {
        public var description: String
    }

    public static func open(request: [UInt8], licenseKey: [UInt8], with key: _RSA.Encryption.PrivateKey) throws -> [UInt8] {
        guard licenseKey.count == key.keySizeInBits / 8 else {
            throw Undecryptable(description: "licenseKey must be \(key.keySizeInBits / 8) bytes, not \(licenseKey.count).")
        }
        let material: Data
        do {
            material = try key.decrypt(licenseKey, padding: .PKCS1_OAEP_SHA256)
        } catch {
            throw Undecryptable(description: "licenseKey cannot be decrypted with this marketplace's encryption key.")
        }
        guard material.count == 32 else { throw Undecryptable(description: "licenseKey does not hold a 16-byte key and a 16-byte IV.") }
        guard !request.isEmpty, request.count % 16 == 0 else {
            throw Undecryptable(description: "the encrypted request is not a whole number of AES blocks.")
        }
        do {
            let iv = try AES._CBC.IV(ivBytes: material.suffix(16))
            return Array(try AES._CBC.decrypt(request, using: SymmetricKey(data: material.prefix(16)), iv: iv))
        } catch {
            throw Undecryptable(description: "the request cannot be decrypted with the key and IV in licenseKey (bad padding).")
        }
    }

    /// What a device does (for tests and `souk-device`): a fresh AES key and IV, the request
    /// encrypted with them, and both sealed with the certificate's public key.
    public static func seal(request: [UInt8], for key: _RSA.Encryption.PublicKey) throws -> (request: [UInt8], licenseKey: [UInt8]) {
        let aesKey = SymmetricKey(size: .bits128)
        var iv = [UInt8](repeating: 0, count: 16)
        for index in iv.indices { iv[index] = UInt8.random(in: 0...255) }
        let ciphertext = try AES._CBC.encrypt(request, using: aesKey, iv: try AES._CBC.IV(ivBytes: iv))
        let material = aesKey.withUnsafeBytes { Array($0) } + iv
        return (Array(ciphertext), Array(try key.encrypt(material, padding: .PKCS1_OAEP_SHA256)))
    }
}
