import Foundation
import JWTKit
import SoukCore
import SoukStore
import Synchronization

/// Checks a Souk ID token presented to the commerce API in place of an access token: the signature
/// against the marketplace's published keys only (never an app's own key), then `iss`, `exp` and
/// `iat` (`IDTokenClaims.refusal`), then that the account still exists and is not disabled. An ID
/// token cannot be revoked, so it works until `exp` (an hour at most) even after a sign-out.
package final class IDTokenVerifier: Sendable {
    package let issuer: String
    package let keyStore: InstallVerificationKeyStore
    package let tokens: TokenStore
    package let now: @Sendable () -> Date
    /// The marketplace's published keys, read again at most once a second (a rotation is seen at once).
    private let published = ShortLivedValue<[InstallVerificationKeyRecord]>(lifetime: .seconds(1))
    /// A JWTKit collection of those keys, rebuilt when the set of key ids changes.
    private let collection = Mutex<(kids: [String], keys: JWTKeyCollection)?>(nil)

    package init(issuer: String, keyStore: InstallVerificationKeyStore, tokens: TokenStore, now: @escaping @Sendable () -> Date) {
        self.issuer = issuer
        self.keyStore = keyStore
        self.tokens = tokens
        self.now = now
    }

    /// The account behind `idToken`, or nil when it is refused. Throws only when the database cannot answer.
    package func account(idToken: String) async throws -> (accountID: UUID, email: String, sandbox: Bool)? {
        var verified = try? await verificationKeys(fresh: false).verify(idToken, as: IDTokenClaims.self)
        if verified == nil {
            // Signed by a key made within the last second (a rotation in another process)?
            verified = try? await verificationKeys(fresh: true).verify(idToken, as: IDTokenClaims.self)
        }
        guard let claims = verified, claims.refusal(issuer: issuer, now: now()) == nil, let accountID = claims.accountID,
              let account = try await tokens.signedInAccount(accountID) else { return nil }
        return (accountID, account.email, account.sandbox)
    }

    /// The marketplace's published keys as a JWTKit collection; `fresh` reads them past the cache.
    private func verificationKeys(fresh: Bool) async throws -> JWTKeyCollection {
        let load = {
            try await self.keyStore.publishedKeys(retiredAfter: self.now().addingTimeInterval(-InstallVerificationKeyring.publicationGrace))
                .filter { $0.owner == InstallVerificationKeyRecord.marketplaceOwner }
        }
        let records = fresh ? try await load() : try await published.value(keepOnFailure: true, load: load)
        let kids = records.map(\.kid)
        if let held = collection.withLock({ $0 }), held.kids == kids { return held.keys }
        let keys = JWTKeyCollection()
        for record in records {
            await keys.add(ecdsa: try ES256PublicKey(pem: record.publicKeyPEM), kid: JWKIdentifier(string: record.kid))
        }
        collection.withLock { $0 = (kids, keys) }
        return keys
    }
}
