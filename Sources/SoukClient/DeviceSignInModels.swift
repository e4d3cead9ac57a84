import Foundation

/// A device sign-in under way (RFC 8628 §3.2): show ``userCode`` and ``verificationURI`` (or a QR
/// code of ``verificationURIComplete``) and wait for the person to approve on another device.
public struct DeviceAuthorization: Sendable, Hashable {
    /// The code the app polls with; never shown to the person.
    public let deviceCode: String
    /// The short code the person types at ``verificationURI``.
    public let userCode: String
    public let verificationURI: URL
    /// ``verificationURI`` with the code in it, for a QR code or a link.
    public let verificationURIComplete: URL?
    /// How long the codes stay valid.
    public let expiresIn: Duration
    /// How long to wait between polls (5 seconds when the server does not say).
    public let interval: Duration

    public init(deviceCode: String, userCode: String, verificationURI: URL, verificationURIComplete: URL? = nil,
                expiresIn: Duration, interval: Duration = .seconds(5)) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// The tokens the OAuth token endpoint grants (RFC 6749 §5.1).
public struct SoukTokens: Sendable, Hashable {
    /// `sat_…`: send as `Authorization: Bearer` (``SoukClient`` does).
    public let accessToken: String
    /// `srt_…`: trade for a new pair with ``SoukClient/refresh(refreshToken:clientId:)``; rotated on every use.
    public let refreshToken: String?
    /// Seconds the access token lives.
    public let expiresIn: Int?
    public let scope: String?

    public init(accessToken: String, refreshToken: String?, expiresIn: Int?, scope: String?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.scope = scope
    }
}

/// RFC 8628 §3.2's device authorization response.
struct DeviceAuthorizationResponse: Decodable {
    let device_code: String
    let user_code: String
    let verification_uri: String
    let verification_uri_complete: String?
    let expires_in: Int
    let interval: Int?
}

/// RFC 6749 §5.1's token response.
struct TokenResponse: Decodable {
    let access_token: String
    let refresh_token: String?
    let expires_in: Int?
    let scope: String?
}

/// RFC 6749 §5.2's error response.
struct OAuthErrorResponse: Decodable {
    let error: String
    let error_description: String?
}
