import Crypto
import Foundation

/// The claims of the ID token Souk issues as an OpenID Provider (OpenID Connect Core 1.0 §2): an
/// ES256 JWS signed with the marketplace's key, published in `/.well-known/jwks.json`.
///
/// `sub` is the account's id: a random (version 4) UUID, stable for the life of the account and
/// never sequential, so it says nothing about how many accounts exist. `email` and
/// `email_verified` are present only when the `email` scope was granted; Souk does not prove that a
/// person receives mail at their address, so `email_verified` is false.
public struct IDTokenClaims: Sendable, Equatable, Codable {
    /// An ID token lives an hour, or as long as an access token when that is shorter. It cannot be
    /// revoked as an access token can, so it is kept short: a signed-out device's ID token still
    /// works for the commerce API until `exp` (docs/oauth.md, "OpenID Connect").
    public static let longestLifetime: TimeInterval = 3600
    /// How far ahead of the verifier's clock `iat` may be (another process's clock).
    public static let clockSkew: TimeInterval = 60

    public var iss: String
    public var sub: String
    public var aud: String
    public var exp: Int64
    public var iat: Int64
    public var authTime: Int64?
    public var nonce: String?
    public var atHash: String?
    public var email: String?
    public var emailVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email
        case authTime = "auth_time"
        case atHash = "at_hash"
        case emailVerified = "email_verified"
    }

    public init(issuer: String, accountID: UUID, clientId: String, issuedAt: Date, lifetime: TimeInterval,
                authTime: Date?, nonce: String?, accessToken: String?, email: String?) {
        iss = issuer
        sub = accountID.uuidString.lowercased()
        aud = clientId
        iat = Int64(issuedAt.timeIntervalSince1970)
        exp = iat + Int64(min(lifetime, Self.longestLifetime))
        self.authTime = authTime.map { Int64($0.timeIntervalSince1970) }
        self.nonce = nonce
        atHash = accessToken.map(Self.atHash)
        self.email = email
        emailVerified = email == nil ? nil : false
    }

    /// The ID token's lifetime next to an access token living `accessToken`.
    public static func lifetime(accessToken: TimeInterval) -> TimeInterval {
        min(accessToken, longestLifetime)
    }

    /// `at_hash` (OpenID Connect Core 1.0 §3.1.3.6): base64url of the left half of the access
    /// token's SHA-256, ES256's hash.
    public static func atHash(_ accessToken: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8)).prefix(16)))
    }

    /// The account a token names, once `refusal` has nothing to say.
    public var accountID: UUID? { UUID(uuidString: sub) }

    /// Why a token whose signature verified must still be refused by this issuer at `now`, or nil.
    /// Other JWTs the marketplace key signs (install verification and developer relationship
    /// tokens) name the marketplace's AppleItemID as `iss`, never `issuer`, and have no `sub`.
    public func refusal(issuer: String, now: Date) -> String? {
        let seconds = Int64(now.timeIntervalSince1970)
        guard iss == issuer else { return "iss" }
        guard exp > seconds else { return "exp" }
        guard iat <= seconds + Int64(Self.clockSkew), exp - iat <= Int64(Self.longestLifetime) else { return "iat" }
        guard accountID != nil else { return "sub" }
        return nil
    }
}

/// The OpenID Connect scope values Souk understands (OpenID Connect Core 1.0 §3.1.2.1, §5.4).
/// Scopes are space-separated; other values (Souk's own `all`) pass through untouched.
public enum OpenIDScope {
    public static let openid = "openid"
    public static let email = "email"

    /// True when the space-separated `scope` contains `value`.
    public static func contains(_ scope: String, _ value: String) -> Bool {
        scope.split(separator: " ").contains { $0 == value }
    }
}
