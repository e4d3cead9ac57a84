import Hummingbird
import SoukCore
import SoukStore

/// The device authorization endpoint's answer (RFC 8628 §3.2).
struct DeviceAuthorizationResponse: Codable, Equatable {
    var deviceCode: String
    /// `XXXX-XXXX`.
    var userCode: String
    var verificationURI: String
    var verificationURIComplete: String
    var expiresIn: Int
    var interval: Int

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }

    init(_ authorization: DeviceAuthorization, publicURL: String) {
        deviceCode = authorization.deviceCode
        userCode = UserCode.display(authorization.userCode)
        verificationURI = publicURL + "/activate"
        verificationURIComplete = verificationURI + "?user_code=" + userCode
        expiresIn = authorization.expiresIn
        interval = authorization.interval
    }

    /// `200`, never cached (the device code is a secret).
    var response: Response {
        .json(bytes: WireJSON.encode(self), cacheControl: "no-store")
    }
}
