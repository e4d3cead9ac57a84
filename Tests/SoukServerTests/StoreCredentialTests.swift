import Crypto
import Foundation
import SQLKit
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing
import _CryptoExtras

/// Store credentials sealed at rest (`StoreCredentialOperations`, `SealedStoreSettings`), on both
/// databases: the round trip, what the database holds, who reaches which catalog, what an upload
/// must be, and what is audited.
@Suite struct StoreCredentialTests {
    typealias World = DeveloperAPIWorld
    static let rokuKey = "ROKU-PARTNER-KEY-0123456789abcdef"
    static let acmeMember = SoukActor.developerMember(accountID: UUID(), email: "dev@acme.test", developerID: "acme", role: .member)
    static let support = SoukActor.staff(accountID: UUID(), email: "support@souk.test", role: .support)
    static let operatorStaff = SoukActor.staff(accountID: UUID(), email: "operator@souk.test", role: .operator)

    static func operations(_ runtime: SoukRuntime) -> StoreCredentialOperations { StoreCredentialOperations(runtime: runtime) }

    /// An App Store `.p8`: a P-256 key in PKCS#8 PEM.
    static var appleP8: String { P256.Signing.PrivateKey().pemRepresentation }

    /// A Google service account's key file.
    static func serviceAccount(email: String? = "verifier@acme.iam.gserviceaccount.com", type: String = "service_account",
                               key: String? = nil) throws -> String {
        var file: [String: String] = ["type": type, "private_key": try key ?? _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation]
        file["client_email"] = email
        return String(decoding: try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test(arguments: TestBackend.available)
    func aSealedCredentialRoundTripsAndTheDatabaseHoldsNoSecret(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let operations = Self.operations(runtime)
            let set = try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: .rokuPartnerAPIKey, upload: Array((Self.rokuKey + "\n").utf8))
            #expect(set.hint == "ends with cdef" && set.sealed.isEmpty)
            let p8 = Self.appleP8
            try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: .appleServerAPIKey, upload: Array(p8.utf8), filename: "AuthKey_ABC123DEF4.p8")

            let rows = try await runtime.database.sql.raw("SELECT sealed, key_id, hint FROM store_credentials").all()
            #expect(rows.count == 2)
            let sealer = try CredentialSealer.load(keysDir: runtime.config.keysDir)
            for row in rows {
                let sealed = try row.decode(column: "sealed", as: String.self)
                #expect(!sealed.contains(Self.rokuKey) && !sealed.contains("PRIVATE KEY"))
                #expect(!sealed.contains(Data(Self.rokuKey.utf8).base64EncodedString().prefix(16)))
                #expect(try row.decode(column: "key_id", as: String.self) == sealer.keyId)
            }
            let listed = try await operations.list(actor: Self.acmeMember, app: World.acmeApp)
            #expect(listed.map(\.kind) == [.appleServerAPIKey, .rokuPartnerAPIKey])
            #expect(listed[0].hint.hasPrefix("key ABC123DEF4, public key ") && listed.allSatisfy { $0.sealed.isEmpty && $0.setBy == "dev@acme.test" })

            // Opened when the settings are read: the Roku store is configured by its sealed key alone.
            let settings = try await SealedStoreSettings(database: runtime.database, keysDir: runtime.config.keysDir)
                .apply(to: CommerceStoreSettings(apple: AppleStoreSettings(keyId: "ABC123DEF4", issuerId: "issuer")), app: World.acmeApp)
            #expect(try settings.roku?.partnerApiKey?.resolve() == Self.rokuKey)
            #expect(try settings.apple?.privateKey?.resolve() == p8.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(settings.apple?.hasServerAPIKey == true)
            #expect(settings.roku?.partnerApiKey?.description == "sealed credential ends with cdef")
            let encoded = String(decoding: try JSONEncoder().encode(settings.roku?.partnerApiKey), as: UTF8.self)
            #expect(!encoded.contains(Self.rokuKey))

            // Audited with the hint and never the secret; a replacement says what it replaced.
            try await operations.set(actor: Self.operatorStaff, app: World.acmeApp, kind: .rokuPartnerAPIKey, upload: Array("ROKU-NEW-KEY-99999999".utf8))
            let entries = try await AuditLog(database: runtime.database).list(action: AuditAction.storeCredentialSet.rawValue)
            #expect(entries.count == 3 && entries.allSatisfy { $0.target == "catalog:\(World.acmeApp)" })
            #expect(entries.first { $0.actor == "operator@souk.test" }?.before?.contains("ends with cdef") == true)
            #expect(entries.allSatisfy { !($0.after ?? "").contains(Self.rokuKey) && !($0.after ?? "").contains("PRIVATE") })
            try await operations.remove(actor: Self.acmeMember, app: World.acmeApp, kind: .rokuPartnerAPIKey)
            #expect(try await AuditLog(database: runtime.database).list(action: AuditAction.storeCredentialRemove.rawValue).count == 1)
            #expect(try await operations.list(actor: Self.acmeMember, app: World.acmeApp).map(\.kind) == [.appleServerAPIKey])
            await #expect(throws: DeveloperOperationError.self) {
                try await operations.remove(actor: Self.acmeMember, app: World.acmeApp, kind: .rokuPartnerAPIKey)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func anotherOrganisationsCatalogIsNotFoundAndSupportChangesNothing(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, world in
            let operations = Self.operations(runtime)
            let upload = Array(Self.rokuKey.utf8)
            for app in [World.betaApp, "org.nobody.app"] {
                await #expect(throws: DeveloperOperationError.self) { try await operations.list(actor: Self.acmeMember, app: app) }
                do {
                    try await operations.set(actor: Self.acmeMember, app: app, kind: .rokuPartnerAPIKey, upload: upload)
                    Issue.record("set reached \(app)")
                } catch let error as DeveloperOperationError {
                    guard case .notFound = error else { Issue.record("\(error)"); continue }
                }
                do {
                    try await operations.remove(actor: Self.acmeMember, app: app, kind: .rokuPartnerAPIKey)
                    Issue.record("remove reached \(app)")
                } catch let error as DeveloperOperationError {
                    guard case .notFound = error else { Issue.record("\(error)"); continue }
                }
            }
            do {
                try await operations.set(actor: Self.support, app: World.betaApp, kind: .rokuPartnerAPIKey, upload: upload)
                Issue.record("support set a credential")
            } catch let error as DeveloperOperationError {
                guard case .notAllowed = error else { Issue.record("\(error)"); return }
            }
            let metricsOnly = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: [.metricsRead])
            await #expect(throws: DeveloperOperationError.missingScope(.catalogWrite)) {
                try await operations.set(actor: metricsOnly, app: World.acmeApp, kind: .rokuPartnerAPIKey, upload: upload)
            }
            #expect(try await runtime.database.sql.raw("SELECT app FROM store_credentials").all().isEmpty)
            // The operator's side reaches every catalog; support reads the list.
            try await operations.set(actor: Self.operatorStaff, app: World.betaApp, kind: .rokuPartnerAPIKey, upload: upload)
            try await operations.set(actor: .cli(user: "tester"), app: World.betaApp, kind: .amazonSharedSecret, upload: Array("2:amazon-secret".utf8))
            #expect(try await operations.list(actor: Self.support, app: World.betaApp).count == 2)
            _ = world
        }
    }

    @Test(arguments: TestBackend.available)
    func badUploadsAreRefusedNamingTheProblemAndNothingIsWritten(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let operations = Self.operations(runtime)
            let ecKey = P256.Signing.PrivateKey().pemRepresentation
            let rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
            let bad: [(StoreCredentialKind, String, String)] = [
                (.appleServerAPIKey, "not a key", "EC P-256"),
                (.appleServerAPIKey, rsaKey, "EC P-256"),
                (.appleServerAPIKey, P384.Signing.PrivateKey().pemRepresentation, "EC P-256"),
                (.googleServiceAccount, "[1, 2]", "JSON object"),
                (.googleServiceAccount, try Self.serviceAccount(email: nil), "client_email"),
                (.googleServiceAccount, try Self.serviceAccount(type: "authorized_user"), "service_account"),
                (.googleServiceAccount, try Self.serviceAccount(key: ecKey), "RSA"),
                (.rokuPartnerAPIKey, "", "empty"),
                (.rokuPartnerAPIKey, "short", "8 to 4,096"),
                (.amazonSharedSecret, "two\nlines of secret", "one line"),
                (.googleRTDNToken, String(repeating: "x", count: 5000), "8 to 4,096"),
            ]
            for (kind, upload, problem) in bad {
                do {
                    try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: kind, upload: Array(upload.utf8))
                    Issue.record("\(kind) accepted \(problem)")
                } catch let DeveloperOperationError.invalid(field, message) {
                    #expect(field == "file" && message.contains(problem), "\(message)")
                    #expect(!message.contains(upload) || upload.isEmpty)
                }
            }
            #expect(try await runtime.database.sql.raw("SELECT app FROM store_credentials").all().isEmpty)
            #expect(try await AuditLog(database: runtime.database).list(action: AuditAction.storeCredentialSet.rawValue).isEmpty)
            // The good ones of the same kinds.
            let google = try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: .googleServiceAccount, upload: Array(try Self.serviceAccount().utf8))
            #expect(google.hint == "verifier@acme.iam.gserviceaccount.com")
            let apple = try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: .appleServerAPIKey, upload: Array(ecKey.utf8), filename: "key.p8")
            #expect(apple.hint.hasPrefix("public key ") && !apple.hint.contains("PRIVATE"))
        }
    }

    @Test(arguments: TestBackend.available)
    func aMissingOrAnotherSealingKeyIsAClearFailureNotAVerdict(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let operations = Self.operations(runtime)
            try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: .rokuPartnerAPIKey, upload: Array(Self.rokuKey.utf8))
            let keysDir = runtime.config.keysDir, keyFile = keysDir + "/" + CredentialSealer.fileName
            let sealed = SealedStoreSettings(database: runtime.database, keysDir: keysDir)
            let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue ?? (attributes[.posixPermissions] as? Int) == 0o600)

            try FileManager.default.removeItem(atPath: keyFile)
            let missing = try await sealed.apply(to: CommerceStoreSettings(), app: World.acmeApp)
            #expect(throws: StoreSettingsError.self) { try missing.roku?.partnerApiKey?.resolve() }
            do { _ = try missing.roku?.partnerApiKey?.resolve() } catch { #expect("\(error)".contains("missing")) }

            // Another key (a lost one replaced): the failure names both keys' ids, never a key.
            _ = try CredentialSealer.loadOrCreate(keysDir: keysDir)
            let other = try await sealed.apply(to: CommerceStoreSettings(), app: World.acmeApp)
            do {
                _ = try other.roku?.partnerApiKey?.resolve()
                Issue.record("opened under another key")
            } catch {
                #expect("\(error)".contains("upload the credential again"))
            }
            // A box moved to another row does not open either (it is bound to its app and kind).
            try await operations.set(actor: Self.acmeMember, app: World.acmeApp, kind: .amazonSharedSecret, upload: Array("amazon-secret-1".utf8))
            try await runtime.database.sql.raw("""
                UPDATE store_credentials SET sealed = (SELECT sealed FROM store_credentials WHERE kind = 'shared-secret'),
                  key_id = (SELECT key_id FROM store_credentials WHERE kind = 'shared-secret') WHERE kind = 'partner-api-key'
                """).run()
            let moved = try await sealed.apply(to: CommerceStoreSettings(), app: World.acmeApp)
            #expect(try moved.amazon?.sharedSecret?.resolve() == "amazon-secret-1")
            #expect(throws: StoreSettingsError.self) { try moved.roku?.partnerApiKey?.resolve() }
        }
    }

    @Test(arguments: TestBackend.available)
    func aCatalogGivenToAnotherOwnerLosesThePreviousOwnersSealedCredentials(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let operations = Self.operations(runtime)
            try await operations.set(actor: Self.operatorStaff, app: World.betaApp, kind: .rokuPartnerAPIKey, upload: Array(Self.rokuKey.utf8))
            try await operations.set(actor: Self.operatorStaff, app: World.acmeApp, kind: .rokuPartnerAPIKey, upload: Array(Self.rokuKey.utf8))
            let developers = DeveloperOperations(runtime: runtime)
            // The same owner again changes nothing and keeps the credential.
            #expect(try await developers.setCatalogDeveloper(actor: .cli(user: "ops"), app: World.betaApp, developer: "beta")
                    == CatalogMove(before: "beta", credentialsRemoved: 0))
            #expect(try await operations.list(actor: Self.operatorStaff, app: World.betaApp).count == 1)

            let move = try await developers.setCatalogDeveloper(actor: .cli(user: "ops"), app: World.betaApp, developer: "acme")
            #expect(move == CatalogMove(before: "beta", credentialsRemoved: 1))
            #expect(try await operations.list(actor: Self.acmeMember, app: World.betaApp).isEmpty)
            #expect(try await StoreCredentialStore(database: runtime.database).credentials(app: World.acmeApp).count == 1)
            let entry = try #require(try await AuditLog(database: runtime.database).list(action: "catalog.set-developer").first)
            #expect(entry.after?.contains("\"credentialsRemoved\":\"1\"") == true)
        }
    }
}
