import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The token endpoint's success answer (RFC 6749 §5.1, RFC 8693 §2.2.1), as Apple's example shows it
/// (MarketplaceKit's “Reauthenticating a person”): `token_type`, `issued_token_type`, `expires_in`, `access_token`, `scope`, `refresh_token`.
struct OAuthTokenResponse: Codable, Equatable {
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"

    var accessToken: String
    var tokenType = "Bearer"
    var issuedTokenType = Self.accessTokenType
    var expiresIn: Int
    var refreshToken: String
    var scope: String
    /// OpenID Connect Core 1.0 §3.1.3.3: present when the granted scope includes `openid`.
    var idToken: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case issuedTokenType = "issued_token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
        case idToken = "id_token"
    }

    init(pair: TokenPair, idToken: String? = nil) {
        accessToken = pair.accessToken
        expiresIn = pair.expiresIn
        refreshToken = pair.refreshToken
        scope = pair.scope
        self.idToken = idToken
    }

    /// `200`, never cached (RFC 6749 §5.1: `Cache-Control: no-store`, `Pragma: no-cache`).
    var response: Response {
        .json(bytes: WireJSON.encode(self), cacheControl: "no-store")
    }
}
