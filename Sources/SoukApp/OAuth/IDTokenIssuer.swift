import Foundation
import JWTKit
import SoukCore
import SoukStore

/// Signs OpenID Connect ID tokens (docs/oauth.md, "OpenID Connect") with the marketplace's current
/// key, the one `/.well-known/jwks.json` publishes. Every grant of the token endpoint asks it with
/// the pair it issued: when the granted scope includes `openid` the answer carries an `id_token`.
package struct IDTokenIssuer: Sendable {
    /// `iss`: the marketplace's public URL.
    package let issuer: String
    package let keys: InstallVerificationKeyring
    package let tokens: TokenStore
    package let lifetime: TimeInterval
    package let now: @Sendable () -> Date

    package init(issuer: String, keys: InstallVerificationKeyring, tokens: TokenStore, now: @escaping @Sendable () -> Date) {
        self.issuer = issuer
        self.keys = keys
        self.tokens = tokens
        self.lifetime = IDTokenClaims.lifetime(accessToken: tokens.lifetimes.accessToken.timeInterval)
        self.now = now
    }

    /// The ID token to answer with `pair`, or nil when `openid` was not granted.
    package func idToken(for pair: TokenPair, clientId: String) async throws -> String? {
        guard let accountID = pair.accountID else { return nil }
        return try await idToken(accountID: accountID, clientId: clientId, scope: pair.scope, authTime: pair.authTime,
                                 nonce: pair.nonce, accessToken: pair.accessToken)
    }

    /// An ID token for `accountID`, issued to `clientId` (its `aud`), or nil when `scope` lacks
    /// `openid` or the account was disabled meanwhile. `accessToken` (the one answered beside it)
    /// gives `at_hash`; `nonce` is echoed as the authorization request sent it.
    package func idToken(accountID: UUID, clientId: String, scope: String, authTime: Date?, nonce: String?,
                 accessToken: String?) async throws -> String? {
        guard OpenIDScope.contains(scope, OpenIDScope.openid),
              let account = try await tokens.signedInAccount(accountID) else { return nil }
        let claims = IDTokenClaims(issuer: issuer, accountID: accountID, clientId: clientId, issuedAt: now(), lifetime: lifetime,
                                   authTime: authTime, nonce: nonce, accessToken: accessToken,
                                   email: OpenIDScope.contains(scope, OpenIDScope.email) ? account.email : nil)
        return try await keys.signWithMarketplaceKey(claims)
    }
}

extension IDTokenClaims: JWTPayload {
    /// JWTKit's own check is empty: the claims are checked by `refusal(issuer:now:)`, which takes
    /// the issuer and the clock JWTKit cannot pass.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
