import Foundation

/// Whether an install verification token is for a person's first install of an app or a later one.
/// Updates are not redownloads (spec §4).
public enum DownloadType: String, Sendable, Codable {
    case download
    case redownload
}

/// The claims of an install verification token (spec §4): an ES256 JWS that Apple checks against
/// the marketplace's registered key before an install, redownload or update.
public struct InstallVerificationClaims: Sendable, Equatable, Codable {
    public static let audience = "AppleDownloadVerification-v1"
    /// Apple's example lifetime.
    public static let defaultLifetime: TimeInterval = 20 * 60

    /// AppleItemID of the marketplace (or of the web-distributed app itself), as a string.
    public var iss: String
    public var iat: Int64
    public var exp: Int64
    public var aud: String
    /// Bundle id of the app being installed.
    public var bid: String
    public var dtype: DownloadType
    /// A fresh random UUID per token.
    public var nonce: String
    /// AppleItemID and AppleVersionID of the app (optional in Apple's format, always sent by Souk).
    public var iid: String?
    public var vid: String?

    public init(issuer: UInt64, bundleId: String, downloadType: DownloadType, appleItemId: UInt64, appleVersionId: UInt64,
                issuedAt: Date, lifetime: TimeInterval = defaultLifetime, nonce: UUID = UUID()) {
        self.iss = String(issuer)
        self.iat = Int64(issuedAt.timeIntervalSince1970)
        self.exp = iat + Int64(lifetime)
        self.aud = Self.audience
        self.bid = bundleId
        self.dtype = downloadType
        self.nonce = nonce.uuidString.lowercased()
        self.iid = String(appleItemId)
        self.vid = String(appleVersionId)
    }
}

/// A `marketplace-kit://install?…` link (spec §7), every value URL-encoded.
public struct InstallLink: Sendable, Equatable {
    public var alternativeDistributionPackage: String
    public var installVerificationToken: String
    /// The single-use grant the device exchanges at the token endpoint.
    public var token: String?
    /// The account, which becomes `login_hint` and groups restores.
    public var account: String?
    public var appShareURL: String?

    public init(alternativeDistributionPackage: String, installVerificationToken: String, token: String? = nil,
                account: String? = nil, appShareURL: String? = nil) {
        self.alternativeDistributionPackage = alternativeDistributionPackage
        self.installVerificationToken = installVerificationToken
        self.token = token
        self.account = account
        self.appShareURL = appShareURL
    }

    /// Characters left unescaped in values: RFC 3986 unreserved only, so `:/?&=+#` are always encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public var url: String {
        let items: [(String, String?)] = [
            ("alternativeDistributionPackage", alternativeDistributionPackage),
            ("installVerificationToken", installVerificationToken),
            ("token", token), ("account", account), ("appShareURL", appShareURL),
        ]
        let query = items.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")" }
        }
        return "marketplace-kit://install?" + query.joined(separator: "&")
    }
}
