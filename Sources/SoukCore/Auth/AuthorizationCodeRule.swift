import Foundation

/// A token request for the `authorization_code` grant (RFC 6749 §4.1.3, RFC 7636 §4.5) whose own
/// parameters are well formed. Only such a request may claim a code: a request that could never
/// succeed (no `code_verifier`, say) is refused before the code is touched, so it cannot burn it.
public struct AuthorizationCodeRequest: Sendable, Equatable {
    public let code: String
    public let clientId: String
    public let codeVerifier: String
    /// Optional: iOS does not send it (MarketplaceKit's “Reauthenticating a person”); when sent it must be the one the code was issued for.
    public let redirectURI: String?

    /// Checks the parameters on their own, without the code's stored values.
    public static func parse(code: String?, clientId: String, codeVerifier: String?, redirectURI: String?) -> Result<Self, OAuthError> {
        guard let code, !code.isEmpty else { return .failure(OAuthError(.invalidRequest, "code is required.")) }
        guard code.utf8.count <= 512 else { return .failure(OAuthError(.invalidRequest, "code is too long.")) }
        guard let codeVerifier, !codeVerifier.isEmpty else { return .failure(OAuthError(.invalidRequest, "code_verifier is required.")) }
        guard PKCE.isWellFormed(codeVerifier) else {
            return .failure(OAuthError(.invalidRequest, "code_verifier must be 43–128 characters of [A-Za-z0-9-._~]."))
        }
        if let redirectURI, redirectURI.isEmpty || redirectURI.utf8.count > 2048 {
            return .failure(OAuthError(.invalidRequest, "redirect_uri is not a valid URI."))
        }
        return .success(Self(code: code, clientId: clientId, codeVerifier: codeVerifier, redirectURI: redirectURI))
    }
}

/// What the authorization server stored when it issued a code, read back when the code is claimed.
public struct IssuedAuthorizationCode: Sendable, Equatable {
    public var clientId: String
    public var redirectURI: String
    public var codeChallenge: String
    /// As stored (`S256` or `plain`).
    public var codeChallengeMethod: String
    public var expiresAt: Date

    public init(clientId: String, redirectURI: String, codeChallenge: String, codeChallengeMethod: String, expiresAt: Date) {
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.expiresAt = expiresAt
    }
}

/// Whether a claimed code yields tokens for a request. Decided after the code is claimed, from its
/// stored values: a code presented by the wrong client, with the wrong verifier or too late stays
/// used (RFC 6749 §4.1.2: a code is single-use whatever happens; a thief gets one try).
public enum AuthorizationCodeRule {
    /// nil when the request may have tokens; otherwise the RFC 6749 §5.2 error to answer.
    public static func refusal(for request: AuthorizationCodeRequest, code: IssuedAuthorizationCode, now: Date) -> OAuthError? {
        guard code.expiresAt > now else {
            return OAuthError(.invalidGrant, "The authorization code is invalid, expired or already used.")
        }
        guard code.clientId == request.clientId else {
            return OAuthError(.invalidGrant, "The code was issued to another client.")
        }
        if let redirectURI = request.redirectURI, redirectURI != code.redirectURI {
            return OAuthError(.invalidGrant, "redirect_uri does not match the authorization request.")
        }
        guard let method = PKCE.Method(rawValue: code.codeChallengeMethod),
              PKCE.verify(verifier: request.codeVerifier, challenge: code.codeChallenge, method: method) else {
            return OAuthError(.invalidGrant, "code_verifier does not match the code_challenge.")
        }
        return nil
    }
}
