import Crypto
import Foundation
import JWTKit
import SoukCore
import SoukStore
import Synchronization

/// The install verification signing keys (spec §4): the marketplace's key, the keys of apps in
/// web-distribution mode, and the retired keys still published until their tokens expire.
///
/// Which key is current lives in the database (`install_verification_keys`, public halves only),
/// so every process signs with the same key within a second of a rotation; private keys are files
/// in the keys folder, loaded once each.
public final class InstallVerificationKeyring: Sendable {
    public let store: InstallVerificationKeyStore
    package let keysDir: String
    /// Every owner's current key, re-read at most once per `refreshInterval`.
    private let active: ShortLivedValue<[UInt64: InstallVerificationKeyRecord]>
    /// Private keys by key file, and a JWTKit collection holding each under its current kid.
    private let loaded = Mutex<[String: (kid: String, key: ES256PrivateKey)]>([:])
    private let collection = JWTKeyCollection()

    /// A retired key stays in the JWKS this long after its last token could have been issued: the
    /// longest lifetime of what the marketplace key signs (an ID token's hour) plus ten minutes.
    public static let publicationGrace: TimeInterval = max(InstallVerificationClaims.defaultLifetime,
                                                           IDTokenClaims.longestLifetime) + 600

    public init(store: InstallVerificationKeyStore, keysDir: String, refreshInterval: Duration = .seconds(1)) {
        self.store = store
        self.keysDir = keysDir
        self.active = ShortLivedValue(lifetime: refreshInterval)
    }

    /// The current key of every owner (0 = the marketplace). While the database cannot answer, the
    /// keys read last keep signing: a rotated-out key stays published for 70 minutes anyway.
    public func activeKeys() async throws -> [UInt64: InstallVerificationKeyRecord] {
        try await active.value(keepOnFailure: true) { try await store.activeKeys() }
    }

    /// The key that signs for `appleItemId` — the app's own in web-distribution mode, else the
    /// marketplace's — and the issuer its tokens carry.
    public func signingKey(for appleItemId: UInt64, marketplace: UInt64) async throws -> (record: InstallVerificationKeyRecord, issuer: UInt64) {
        let keys = try await activeKeys()
        if let own = keys[appleItemId], appleItemId != InstallVerificationKeyRecord.marketplaceOwner { return (own, appleItemId) }
        guard let record = keys[InstallVerificationKeyRecord.marketplaceOwner] else {
            throw CatalogError.invalid("the marketplace has no install verification key; restart Souk to create one")
        }
        return (record, marketplace)
    }

    /// A fresh install verification token for one version of an app.
    public func token(bundleId: String, downloadType: DownloadType, appleItemId: UInt64, appleVersionId: UInt64,
                      marketplace: UInt64, now: Date = Date()) async throws -> String {
        let (record, issuer) = try await signingKey(for: appleItemId, marketplace: marketplace)
        let claims = InstallVerificationClaims(issuer: issuer, bundleId: bundleId, downloadType: downloadType,
                                               appleItemId: appleItemId, appleVersionId: appleVersionId, issuedAt: now)
        return try await sign(claims, with: record)
    }

    /// Signs any payload with the marketplace's current key (developer relationship tokens).
    public func signWithMarketplaceKey(_ payload: some JWTPayload) async throws -> String {
        guard let record = try await activeKeys()[InstallVerificationKeyRecord.marketplaceOwner] else {
            throw CatalogError.invalid("the marketplace has no install verification key; restart Souk to create one")
        }
        return try await sign(payload, with: record)
    }

    private func sign(_ payload: some JWTPayload, with record: InstallVerificationKeyRecord) async throws -> String {
        let needsLoading = loaded.withLock { $0[record.keyFile]?.kid != record.kid }
        if needsLoading {
            let pem = try String(contentsOfFile: keysDir + "/" + record.keyFile, encoding: .utf8)
            let key = try ES256PrivateKey(pem: pem)
            // A renamed key (new kid from App Store Connect) is added again under its new kid.
            await collection.add(ecdsa: key, kid: JWKIdentifier(string: record.kid))
            loaded.withLock { $0[record.keyFile] = (record.kid, key) }
        }
        return try await collection.sign(payload, kid: JWKIdentifier(string: record.kid), header: ["typ": "JWT"])
    }

    /// The public keys a verifier may meet, as a JWK set (RFC 7517).
    public func jwks(now: Date = Date()) async throws -> [[String: String]] {
        try await store.publishedKeys(retiredAfter: now.addingTimeInterval(-Self.publicationGrace)).map { record in
            let raw = try P256.Signing.PublicKey(pemRepresentation: record.publicKeyPEM).rawRepresentation
            return ["kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": record.kid,
                    "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32))]
        }
    }

    /// Creates a new key for `owner` (0: the marketplace; else an app, which enters web-distribution
    /// mode), makes it current and returns its record. The old key stays published for
    /// `publicationGrace`.
    public func rotate(owner: UInt64, kid: String?) async throws -> InstallVerificationKeyRecord {
        let (file, key) = try SoukKeys.createInstallVerificationKey(in: keysDir)
        let kid = kid ?? SoukKeys.keyId(for: key.publicKey.derRepresentation)
        try await store.activate(owner: owner, kid: kid, keyFile: file, publicKeyPEM: key.publicKey.pemRepresentation)
        guard let record = try await store.activeKeys()[owner] else { throw CatalogError.notFound("the new key was not recorded") }
        return record
    }

    /// Records the keys folder's original key as the marketplace's first key (once).
    package func adoptInitialKey(_ keys: SoukKeys, kid: String) async throws {
        try await store.adoptInitialKey(kid: kid, keyFile: SoukKeys.installVerificationFile,
                                        publicKeyPEM: keys.installVerificationKey.publicKey.pemRepresentation)
    }
}

extension InstallVerificationClaims: JWTPayload {
    /// What a verifier checks besides the signature: the audience and the lifetime.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard aud == Self.audience else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "aud") }
        let now = Int64(Date().timeIntervalSince1970)
        guard iat <= now + 60, exp > now else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "exp") }
    }
}
