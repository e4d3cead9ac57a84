import Foundation
import SoukCore
import SoukStore

/// Setting, listing and removing a catalog's sealed store credentials: the one operation the
/// developer console, the operator's console and `souk stores credentials` call. A developer
/// actor reaches only its own organisation's catalogs (another's is "not found"); staff with the
/// operator role, the CLI and the system reach every catalog; support staff read the list but
/// change nothing. An upload is checked, then sealed, then written in one statement (replacing
/// the one of the same kind: a rotation, used by the next store call in every process), then
/// audited (`store.credential-set`, `store.credential-remove`, with the hint, never the secret).
package struct StoreCredentialOperations: Sendable {
    let database: SoukDatabase
    let ownership: DeveloperOwnership
    let keysDir: String
    let now: @Sendable () -> Date

    package init(database: SoukDatabase, ownership: DeveloperOwnership, keysDir: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.ownership = ownership
        self.keysDir = keysDir
        self.now = now
    }

    package init(services: DeveloperServices, keysDir: String) {
        self.init(database: services.database, ownership: services.ownership, keysDir: keysDir, now: services.now)
    }

    package init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(services: DeveloperServices(runtime: runtime, now: now), keysDir: runtime.config.keysDir)
    }

    var store: StoreCredentialStore { StoreCredentialStore(database: database) }

    /// The catalog's credentials as they may be shown: kind, hint, who set it and when (the boxes
    /// stay in the database).
    package func list(actor: SoukActor, app: String) async throws -> [StoredCredential] {
        // Every staff member reads which credentials are set (never the secrets); changes are the operator's.
        _ = try await ownership.catalogForReading(app, for: actor)
        return try await store.credentials(app: app).map { credential in
            var shown = credential
            shown.sealed = ""
            return shown
        }
    }

    /// Checks `upload`, seals it and sets it as the catalog's credential of `kind`.
    @discardableResult
    package func set(actor: SoukActor, app: String, kind: StoreCredentialKind, upload: [UInt8], filename: String? = nil) async throws -> StoredCredential {
        _ = try await ownership.catalog(app, for: actor, scope: .catalogWrite)
        let checked = try StoreCredentialUpload.check(upload, kind: kind, filename: filename)
        let sealer = try CredentialSealer.loadOrCreate(keysDir: keysDir)
        let credential = StoredCredential(app: app, kind: kind, sealed: try sealer.seal(checked.secret, app: app, kind: kind),
                                          keyId: sealer.keyId, hint: checked.hint, setBy: actor.auditName, setAt: now())
        let before = try await store.credentials(app: app).first { $0.kind == kind }
        try await store.set(credential)
        try await AuditLog(database: database, now: now).record(
            actor: actor, action: .storeCredentialSet, target: "catalog:\(app)",
            before: before.map { ["kind": kind.name, "hint": $0.hint] },
            after: ["kind": kind.name, "hint": checked.hint, "sealingKey": sealer.keyId])
        var shown = credential
        shown.sealed = ""
        return shown
    }

    /// Removes the catalog's credential of `kind`; "not found" when it has none.
    package func remove(actor: SoukActor, app: String, kind: StoreCredentialKind) async throws {
        _ = try await ownership.catalog(app, for: actor, scope: .catalogWrite)
        let before = try await store.credentials(app: app).first { $0.kind == kind }
        guard try await store.remove(app: app, kind: kind) else {
            throw DeveloperOperationError.notFound("Catalog \(app) has no sealed \(kind.summary).")
        }
        try await AuditLog(database: database, now: now).record(
            actor: actor, action: .storeCredentialRemove, target: "catalog:\(app)",
            before: ["kind": kind.name, "hint": before?.hint ?? ""], after: nil)
    }
}
