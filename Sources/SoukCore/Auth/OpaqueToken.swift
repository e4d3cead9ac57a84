import Crypto
import Foundation

/// Opaque bearer secrets (access and refresh tokens, authorization codes, install-link grants):
/// 256 random bits, base64url, with a short prefix naming the kind so a leaked value is recognisable.
/// Only the SHA-256 of a token is ever stored.
public enum OpaqueToken {
    public enum Kind: String, Sendable {
        case accessToken = "sat_"
        case refreshToken = "srt_"
        case authorizationCode = "sac_"
        case installGrant = "sig_"
        case session = "sss_"
        case csrf = "scs_"
        case passwordReset = "spr_"
        case deviceCode = "sdc_"
        /// A registered client's public `client_id` (not a secret, but as unguessable as one).
        case clientId = "sci_"
        /// A developer organisation's API key (`Authorization: Bearer sk_…`, docs/developers.md).
        case developerKey = "sk_"
    }

    /// A fresh secret from the system's secure random generator.
    public static func generate(_ kind: Kind) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        return kind.rawValue + Base64URL.encode(Data(bytes))
    }

    /// What the database keeps: lower-case hex SHA-256 of the whole token.
    public static func hash(_ token: String) -> String {
        Digest.hex(SHA256.hash(data: Data(token.utf8)))
    }
}
