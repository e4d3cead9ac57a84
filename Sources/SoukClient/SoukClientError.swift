import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Why Souk did not do what was asked. An outage (``unavailable(retryAfter:)``) is never a verdict:
/// try again later.
public enum SoukClientError: Error, Sendable, Equatable {
    /// No valid access token (`401`): sign the person in again, or refresh the token.
    case unauthorized
    /// Souk has no such app (or product) (`404`).
    case notFound(SoukProblem?)
    /// The request was refused (`400`, `409`, `422`); the problem's `type` names why, e.g.
    /// `urn:souk:problem:invalid-signature` or `urn:souk:problem:restore-refused`.
    case refused(SoukProblem)
    /// Souk or a store it asks is down or busy (`503`, `429`); `retryAfter` is in seconds when sent.
    case unavailable(retryAfter: Int?)
    /// The OAuth token endpoint refused the request (RFC 6749 §5.2): `error` is e.g. `invalid_grant`.
    case oauth(error: String, description: String?)
    /// Device sign-in: the person declined on the other device (RFC 8628 §3.5 `access_denied`).
    case accessDenied
    /// Device sign-in: the code expired before the person approved it (RFC 8628 §3.5 `expired_token`).
    case expiredDeviceCode
    /// An answer the document does not describe.
    case unexpectedResponse(status: Int)
}

/// An RFC 9457 problem document, as Souk answers refusals.
public struct SoukProblem: Sendable, Equatable, Decodable {
    /// `about:blank`, or `urn:souk:problem:<code>` naming the refusal.
    public let type: String
    public let title: String
    public let status: Int
    /// What went wrong, in plain words for a person.
    public let detail: String
    /// The request id, as in the server's log.
    public let requestId: String?

    public init(type: String, title: String, status: Int, detail: String, requestId: String? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.requestId = requestId
    }

    init(_ problem: Components.Schemas.Problem) {
        self.init(type: problem._type, title: problem.title, status: problem.status, detail: problem.detail,
                  requestId: problem.requestId)
    }
}

extension SoukClientError {
    /// Runs a generated operation, turning what the transport or the generated decoding throws for an
    /// outage into ``unavailable(retryAfter:)`` (a `503` without the documented body is still an outage).
    static func mapping<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as SoukClientError {
            throw error
        } catch let error as ClientError {
            if let response = error.response, [503, 429].contains(response.status.code) {
                throw SoukClientError.unavailable(retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) })
            }
            throw error
        }
    }

    /// The error for a documented 503.
    static func unavailable(_ retryAfter: String?) -> SoukClientError {
        .unavailable(retryAfter: retryAfter.flatMap { Int($0) })
    }
}
