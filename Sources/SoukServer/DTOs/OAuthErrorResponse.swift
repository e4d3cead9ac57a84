import Hummingbird
import SoukCore

/// An OAuth error answer (RFC 6749 §5.2, RFC 7009 §2.2.1): `error` and `error_description`.
struct OAuthErrorResponse: Codable, Equatable {
    var error: String
    var errorDescription: String

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }

    init(_ error: OAuthError) {
        self.error = error.code.rawValue
        errorDescription = error.description
    }

    /// `400` (`401` for `invalid_client`), never cached.
    func response(status: Int) -> Response {
        .json(bytes: WireJSON.encode(self), status: HTTPResponse.Status(code: status), cacheControl: "no-store")
    }
}
