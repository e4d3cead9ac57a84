import Crypto
import Foundation
import SoukCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seals uploaded store credentials with AES-256-GCM under the installation's sealing key,
/// `store-credentials.key` (32 random bytes, base64) in the keys folder: made on first seal with
/// owner-only permissions (when two processes race on a fresh folder the first file wins), shared
/// by every process like the other keys, and copied by `souk backup` with them (docs/deploy.md).
/// A box is bound to its app, store and kind (the AES-GCM additional data), so a box copied to
/// another row does not open. The key is never logged; only its id (a digest) is shown.
package struct CredentialSealer: Sendable {
    package static let fileName = "store-credentials.key"
    let key: SymmetricKey
    /// A digest of the key that names it in each row (`key_id`): a box sealed under another key is
    /// told apart without trying.
    package let keyId: String

    package init(key: SymmetricKey) {
        self.key = key
        keyId = key.withUnsafeBytes { bytes in
            Digest.hex(SHA256.hash(data: Data("souk store credential sealing key".utf8) + Data(bytes)).prefix(6))
        }
    }

    /// The sealing key in `keysDir`, made when it is missing (to seal).
    package static func loadOrCreate(keysDir: String) throws(CredentialSealingError) -> CredentialSealer {
        let path = keysDir + "/" + fileName
        if FileManager.default.fileExists(atPath: path) { return try load(keysDir: keysDir) }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        do {
            try FileManager.default.createDirectory(atPath: keysDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CredentialSealingError("the keys folder \(keysDir) cannot be created")
        }
        let temporary = path + ".\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(fresh.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CredentialSealingError("the sealing key \(path) cannot be written")
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0, errno != EEXIST {
            throw CredentialSealingError("the sealing key \(path) cannot be created (errno \(errno))")
        }
        return try load(keysDir: keysDir)
    }

    /// The sealing key in `keysDir` (to open): a missing or malformed file is an error naming it.
    package static func load(keysDir: String) throws(CredentialSealingError) -> CredentialSealer {
        let path = keysDir + "/" + fileName
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CredentialSealingError("the sealing key \(path) is missing or unreadable")
        }
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
            throw CredentialSealingError("the sealing key \(path) is not 32 bytes of base64")
        }
        return CredentialSealer(key: SymmetricKey(data: data))
    }

    /// The box of `secret` for `kind` of `app`, as base64.
    package func seal(_ secret: String, app: String, kind: StoreCredentialKind) throws(CredentialSealingError) -> String {
        do {
            guard let combined = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Self.binding(app, kind)).combined else {
                throw CredentialSealingError("AES-GCM gave no combined box")
            }
            return combined.base64EncodedString()
        } catch let error as CredentialSealingError {
            throw error
        } catch {
            throw CredentialSealingError("the credential cannot be sealed")
        }
    }

    /// The secret of a stored box, or why it cannot be opened (never the secret, never the key).
    package func open(_ stored: StoredCredentialBox) throws(CredentialSealingError) -> String {
        guard stored.keyId == keyId else {
            throw CredentialSealingError("it was sealed under sealing key \(stored.keyId), this server's is \(keyId) (keys/\(Self.fileName)): "
                                         + "restore that key or upload the credential again")
        }
        guard let data = Data(base64Encoded: stored.sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let opened = try? AES.GCM.open(box, using: key, authenticating: Self.binding(stored.app, stored.kind)),
              let secret = String(data: opened, encoding: .utf8) else {
            throw CredentialSealingError("its sealed box does not open under sealing key \(keyId)")
        }
        return secret
    }

    static func binding(_ app: String, _ kind: StoreCredentialKind) -> Data {
        Data("\(app)\n\(kind.store.rawValue)\n\(kind.rawValue)".utf8)
    }
}

/// What opening a box needs: where it belongs, its sealing key's id and the box.
package struct StoredCredentialBox: Sendable {
    package var app: String
    package var kind: StoreCredentialKind
    package var keyId: String
    package var sealed: String

    package init(app: String, kind: StoreCredentialKind, keyId: String, sealed: String) {
        self.app = app
        self.kind = kind
        self.keyId = keyId
        self.sealed = sealed
    }
}

/// A sealing key that cannot be read or made, or a box that does not open: said without the key
/// or the secret.
package struct CredentialSealingError: Error, Equatable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
