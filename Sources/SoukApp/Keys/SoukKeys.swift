import Crypto
import Foundation
import SoukCore
import SoukStore
import X509
import _CryptoExtras

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The marketplace's key material, kept in `<data dir>/keys/` with owner-only permissions.
///
/// On first start Souk generates development keys and self-signed certificates; an operator replaces
/// the files with the ones Apple's developer portal issued (same names, see `docs/operations.md`).
/// Several Souk processes must share one keys folder (and one blob folder): see `docs/operations.md`.
public struct SoukKeys: Sendable {
    /// ES256 key that signs install verification tokens (the *alternative distribution key*).
    public let installVerificationKey: P256.Signing.PrivateKey
    /// Key id derived from the public key; App Store Connect's key id replaces it in the marketplace identity.
    public let installVerificationKeyId: String
    /// RSA-3072 key whose certificate is the `encryptionCertificateURL`.
    public var licenseEncryptionKey: _RSA.Encryption.PrivateKey { encryptionKeyBox.key }
    private let encryptionKeyBox: RSAKeyBox
    public let licenseEncryptionCertificateDER: [UInt8]
    /// ES256 key whose certificate is the `signingCertificateURL`.
    public let licenseSigningKey: P256.Signing.PrivateKey
    public let licenseSigningCertificateDER: [UInt8]

    package static let installVerificationFile = "install-verification.key.pem"
    package static let encryptionKeyFile = "license-encryption.key.pem"
    package static let encryptionCertificateFile = "license-encryption.cer"
    package static let signingKeyFile = "license-signing.key.pem"
    package static let signingCertificateFile = "license-signing.cer"

    /// Loads the keys in `folder`, generating whichever are missing.
    public static func loadOrCreate(in folder: String, now: Date = Date()) throws -> SoukKeys {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let ivt = try P256.Signing.PrivateKey(pemRepresentation: try loadOrCreateFile(folder, installVerificationFile) {
            P256.Signing.PrivateKey().pemRepresentation
        })
        let encryptionPEM = try loadOrCreateFile(folder, encryptionKeyFile) {
            try _RSA.Encryption.PrivateKey(keySize: .bits3072).pemRepresentation
        }
        let encryption = try _RSA.Encryption.PrivateKey(pemRepresentation: encryptionPEM)
        let encryptionCertificate = try loadOrCreateCertificate(folder, encryptionCertificateFile) {
            let signer = Certificate.PrivateKey(try _RSA.Signing.PrivateKey(pemRepresentation: encryptionPEM))
            return try developmentCertificate(key: signer, algorithm: .sha256WithRSAEncryption,
                                              commonName: "Souk development license encryption",
                                              usage: KeyUsage(keyEncipherment: true), now: now)
        }
        let signing = try P256.Signing.PrivateKey(pemRepresentation: try loadOrCreateFile(folder, signingKeyFile) {
            P256.Signing.PrivateKey().pemRepresentation
        })
        let signingCertificate = try loadOrCreateCertificate(folder, signingCertificateFile) {
            try developmentCertificate(key: Certificate.PrivateKey(signing), algorithm: .ecdsaWithSHA256,
                                       commonName: "Souk development license signing",
                                       usage: KeyUsage(digitalSignature: true), now: now)
        }
        return SoukKeys(
            installVerificationKey: ivt,
            installVerificationKeyId: keyId(for: ivt.publicKey.derRepresentation),
            encryptionKeyBox: RSAKeyBox(key: encryption),
            licenseEncryptionCertificateDER: encryptionCertificate,
            licenseSigningKey: signing,
            licenseSigningCertificateDER: signingCertificate
        )
    }

    /// Writes a new install verification key (a rotation) as `install-verification-<random>.key.pem`
    /// with owner-only permissions and returns the file's name and the key.
    package static func createInstallVerificationKey(in folder: String) throws -> (file: String, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let file = "install-verification-\(UUID().uuidString.lowercased()).key.pem"
        try writeOnce(Data(key.pemRepresentation.utf8), to: folder + "/" + file)
        return (file, key)
    }

    /// A 10-character key id (the length App Store Connect uses) derived from a public key.
    package static func keyId(for publicKeyDER: Data) -> String {
        Digest.hex(SHA256.hash(data: publicKeyDER).prefix(5)).uppercased()
    }

    /// SHA-256 fingerprint of a DER certificate, as `AB:CD:…`.
    public static func fingerprint(_ der: [UInt8]) -> String {
        SHA256.hash(data: der).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    private static func developmentCertificate(key: Certificate.PrivateKey, algorithm: Certificate.SignatureAlgorithm,
                                               commonName: String, usage: KeyUsage,
                                               now: Date) throws -> [UInt8] {
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("Souk (development)")
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: algorithm,
            extensions: Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(usage)
            },
            issuerPrivateKey: key
        )
        return try certificate.serializeAsPEM().derBytes
    }

    /// Reads `name`, or writes what `make` returns when it does not exist. The file appears atomically
    /// with mode 0600; when two processes race on a fresh folder, the first file wins and both use it.
    private static func loadOrCreateFile(_ folder: String, _ name: String, make: () throws -> String) throws -> String {
        let path = folder + "/" + name
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) { return existing }
        try writeOnce(Data(try make().utf8), to: path)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    private static func loadOrCreateCertificate(_ folder: String, _ name: String, make: () throws -> [UInt8]) throws -> [UInt8] {
        let path = folder + "/" + name
        if let existing = FileManager.default.contents(atPath: path) { return Array(existing) }
        try writeOnce(Data(try make()), to: path)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func writeOnce(_ data: Data, to path: String) throws {
        let temporary = path + ".\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw KeyError(path: temporary, reason: "cannot be written")
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0, errno != EEXIST {
            throw KeyError(path: path, reason: "cannot be created (errno \(errno))")
        }
    }
}

/// `_RSA.Encryption.PrivateKey` is an immutable BoringSSL key that is safe to use from any thread,
/// but the type is not marked `Sendable`.
private struct RSAKeyBox: @unchecked Sendable {
    package let key: _RSA.Encryption.PrivateKey
}

/// A key file that cannot be read, written or parsed.
public struct KeyError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "key file \(path) \(reason)" }
}

extension CatalogStore {
    /// The marketplace's display name for pages.
    package func marketplaceName(keys: SoukKeys) async throws -> String {
        try await marketplace(defaultKeyId: keys.installVerificationKeyId).name
    }
}
