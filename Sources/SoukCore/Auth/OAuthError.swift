/// An OAuth 2.0 error response (RFC 6749 §5.2, RFC 7009, RFC 8693) as a value.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case unsupportedTokenType = "unsupported_token_type"
        case accessDenied = "access_denied"
        case unsupportedResponseType = "unsupported_response_type"
        case temporarilyUnavailable = "temporarily_unavailable"
        // RFC 8628 §3.5: the device access token response's errors.
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case expiredToken = "expired_token"
    }

    public var code: Code
    /// Human-readable, safe to show: never echoes secrets.
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The HTTP status RFC 6749 gives the error at the token endpoint.
    public var status: Int {
        code == .invalidClient ? 401 : 400
    }
}

/// Lifetimes of what the authorization server issues; all are settings.
public struct TokenLifetimes: Sendable, Equatable {
    public var accessToken: Duration
    public var refreshToken: Duration
    public var authorizationCode: Duration
    public var installGrant: Duration
    /// How long a just-rotated refresh token may be presented again and get the same new pair.
    public var refreshRetryGrace: Duration

    public init(accessToken: Duration = .seconds(86_400), refreshToken: Duration = .seconds(90 * 86_400),
                authorizationCode: Duration = .seconds(60), installGrant: Duration = .seconds(600),
                refreshRetryGrace: Duration = .seconds(60)) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.authorizationCode = authorizationCode
        self.installGrant = installGrant
        self.refreshRetryGrace = refreshRetryGrace
    }
}
