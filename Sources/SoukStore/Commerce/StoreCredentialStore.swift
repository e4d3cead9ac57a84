import Foundation
import SQLKit
import SoukCore

/// One sealed store credential as the database keeps it: the box, never the secret.
public struct StoredCredential: Sendable, Equatable {
    public var app: String
    public var kind: StoreCredentialKind
    /// The AES-GCM box (nonce, ciphertext, tag) as base64.
    public var sealed: String
    /// The id of the sealing key it was sealed under.
    public var keyId: String
    /// What may be shown of it.
    public var hint: String
    /// The audit name of who set it.
    public var setBy: String
    public var setAt: Date

    public init(app: String, kind: StoreCredentialKind, sealed: String, keyId: String, hint: String, setBy: String, setAt: Date) {
        self.app = app
        self.kind = kind
        self.sealed = sealed
        self.keyId = keyId
        self.hint = hint
        self.setBy = setBy
        self.setAt = setAt
    }
}

/// The `store_credentials` table: each catalog app's sealed store credentials. Setting one again
/// replaces it in one statement (a rotation); removing deletes the row.
public struct StoreCredentialStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// Writes `credential`, replacing the app's credential of the same kind.
    public func set(_ credential: StoredCredential) async throws {
        try await database.sql.raw("""
            INSERT INTO store_credentials (app, store, kind, sealed, key_id, hint, set_by, set_at)
            VALUES (\(bind: credential.app), \(bind: credential.kind.store.rawValue), \(bind: credential.kind.rawValue),
                    \(bind: credential.sealed), \(bind: credential.keyId), \(bind: credential.hint), \(bind: credential.setBy),
                    \(bind: credential.setAt))
            ON CONFLICT (app, store, kind) DO UPDATE SET sealed = excluded.sealed, key_id = excluded.key_id,
              hint = excluded.hint, set_by = excluded.set_by, set_at = excluded.set_at
            """).run()
    }

    /// The app's credentials, in the order of `StoreCredentialKind.allCases`.
    public func credentials(app: String) async throws -> [StoredCredential] {
        let rows = try await database.sql.raw("""
            SELECT app, store, kind, sealed, key_id, hint, set_by, set_at FROM store_credentials WHERE app = \(bind: app)
            """).all()
        let found = try rows.compactMap { row -> StoredCredential? in
            // A kind this version does not know (written by a newer one) is left alone.
            guard let kind = StoreCredentialKind.allCases.first(where: {
                $0.rawValue == (try? row.decode(column: "kind", as: String.self)) && $0.store.rawValue == (try? row.decode(column: "store", as: String.self))
            }) else { return nil }
            return StoredCredential(app: try row.decode(column: "app", as: String.self), kind: kind,
                                    sealed: try row.decode(column: "sealed", as: String.self),
                                    keyId: try row.decode(column: "key_id", as: String.self),
                                    hint: try row.decode(column: "hint", as: String.self),
                                    setBy: try row.decode(column: "set_by", as: String.self),
                                    setAt: try row.decode(column: "set_at", as: Date.self))
        }
        return StoreCredentialKind.allCases.compactMap { kind in found.first { $0.kind == kind } }
    }

    /// Removes the app's credential of `kind`; false when there was none.
    public func remove(app: String, kind: StoreCredentialKind) async throws -> Bool {
        try await database.sql.raw("""
            DELETE FROM store_credentials WHERE app = \(bind: app) AND store = \(bind: kind.store.rawValue) AND kind = \(bind: kind.rawValue)
            RETURNING app
            """).first() != nil
    }
}
