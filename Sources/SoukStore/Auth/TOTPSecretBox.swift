import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seals TOTP secrets at rest with AES-256-GCM. The key is `totp-secret.key` (32 random bytes,
/// base64) in the keys folder beside the marketplace's other keys, created on first use with
/// owner-only permissions; when two processes race on a fresh folder the first file wins.
public struct TOTPSecretBox: Sendable {
    static let fileName = "totp-secret.key"
    let key: SymmetricKey

    public init(key: SymmetricKey) {
        self.key = key
    }

    /// The box whose key is in `keysDir`, making the key when it is missing.
    public static func loadOrCreate(keysDir: String) throws -> TOTPSecretBox {
        let path = keysDir + "/" + fileName
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            return try box(existing, path: path)
        }
        try FileManager.default.createDirectory(atPath: keysDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        let temporary = path + ".\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(fresh.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TOTPSecretBoxError("the TOTP key \(temporary) cannot be written")
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0, errno != EEXIST {
            throw TOTPSecretBoxError("the TOTP key \(path) cannot be created (errno \(errno))")
        }
        return try box(try String(contentsOfFile: path, encoding: .utf8), path: path)
    }

    private static func box(_ text: String, path: String) throws -> TOTPSecretBox {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
            throw TOTPSecretBoxError("the TOTP key \(path) is not 32 bytes of base64")
        }
        return TOTPSecretBox(key: SymmetricKey(data: data))
    }

    /// The sealed secret as base64 (nonce, ciphertext and tag).
    public func seal(_ secret: [UInt8]) throws -> String {
        guard let combined = try AES.GCM.seal(Data(secret), using: key).combined else {
            throw TOTPSecretBoxError("AES-GCM gave no combined box")
        }
        return combined.base64EncodedString()
    }

    /// The secret, or nil when `sealed` was not sealed with this key.
    public func open(_ sealed: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let secret = try? AES.GCM.open(box, using: key) else { return nil }
        return Array(secret)
    }
}

/// A TOTP key file that cannot be read or written.
public struct TOTPSecretBoxError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
