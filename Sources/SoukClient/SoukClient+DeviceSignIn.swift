import Foundation
import HTTPTypes
import OpenAPIRuntime

extension SoukClient {
    /// RFC 8628's grant type for polling the token endpoint with a device code.
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Signs a person in on a device without a browser or keyboard (OAuth 2.0 Device Authorization
    /// Grant, RFC 8628): asks for codes, hands them to `show` (display the user code and the
    /// verification URI), then polls until the person approves on another device.
    /// - Throws: ``SoukClientError/accessDenied``, ``SoukClientError/expiredDeviceCode``, or another
    ///   ``SoukClientError`` (an unknown `clientId` is `.oauth(error: "invalid_client", …)`).
    public func signInWithDevice(
        clientId: String, scope: String? = nil,
        show: @Sendable (DeviceAuthorization) async throws -> Void
    ) async throws -> SoukTokens {
        let authorization = try await startDeviceSignIn(clientId: clientId, scope: scope)
        try await show(authorization)
        return try await finishDeviceSignIn(authorization, clientId: clientId)
    }

    /// The first half of ``signInWithDevice(clientId:scope:show:)``: `POST /oauth/device_authorization`.
    public func startDeviceSignIn(clientId: String, scope: String? = nil) async throws -> DeviceAuthorization {
        var form = [("client_id", clientId)]
        if let scope { form.append(("scope", scope)) }
        let (status, body) = try await postForm("/oauth/device_authorization", form, operationID: "deviceAuthorization")
        guard status == .ok else { throw try Self.oauthError(status: status, body: body) }
        let answer = try JSONDecoder().decode(DeviceAuthorizationResponse.self, from: body)
        guard let verificationURI = URL(string: answer.verification_uri) else {
            throw SoukClientError.unexpectedResponse(status: 200)
        }
        return DeviceAuthorization(
            deviceCode: answer.device_code, userCode: answer.user_code, verificationURI: verificationURI,
            verificationURIComplete: answer.verification_uri_complete.flatMap(URL.init(string:)),
            expiresIn: .seconds(answer.expires_in), interval: .seconds(max(answer.interval ?? 5, 1)))
    }

    /// The second half: polls `POST /oauth/token` every `interval` (5 seconds more after each
    /// `slow_down`, RFC 8628 §3.5) until the person approves, declines, or the code expires.
    public func finishDeviceSignIn(_ authorization: DeviceAuthorization, clientId: String) async throws -> SoukTokens {
        var interval = authorization.interval
        var waited = Duration.zero
        while true {
            // The person cannot have approved yet when the codes were just issued: wait first.
            try await sleep(interval)
            waited += interval
            let (status, body) = try await postForm("/oauth/token", [
                ("grant_type", Self.deviceCodeGrantType), ("device_code", authorization.deviceCode), ("client_id", clientId),
            ], operationID: "deviceAccessToken")
            if status == .ok { return try Self.tokens(body) }
            let error = try Self.oauthError(status: status, body: body)
            switch error {
            case .oauth(error: "authorization_pending", _): break
            case .oauth(error: "slow_down", _): interval += .seconds(5)
            case .oauth(error: "access_denied", _): throw SoukClientError.accessDenied
            case .oauth(error: "expired_token", _): throw SoukClientError.expiredDeviceCode
            default: throw error
            }
            if waited >= authorization.expiresIn { throw SoukClientError.expiredDeviceCode }
        }
    }
}

extension SoukClient {
    /// The largest OAuth answer read (a token response is a few hundred bytes).
    static let maxOAuthResponseBytes = 64 * 1024

    /// POSTs an `application/x-www-form-urlencoded` body through the client's transport: the device
    /// grant's two requests, written by hand after RFC 8628 §3.1 and §3.4.
    func postForm(_ path: String, _ fields: [(String, String)], operationID: String) async throws -> (HTTPResponse.Status, Data) {
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: path)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        let form = fields.map { "\(Self.formEncoded($0.0))=\(Self.formEncoded($0.1))" }.joined(separator: "&")
        let (response, body) = try await SoukClientError.mapping {
            try await transport.send(request, body: HTTPBody(form), baseURL: serverURL, operationID: operationID)
        }
        var data = Data()
        if let body { data = try await Data(collecting: body, upTo: Self.maxOAuthResponseBytes) }
        if [503, 429].contains(response.status.code) {
            throw SoukClientError.unavailable(retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) })
        }
        return (response.status, data)
    }

    /// A form value: everything but RFC 3986's unreserved characters percent-encoded.
    static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    static func tokens(_ body: Data) throws -> SoukTokens {
        let answer = try JSONDecoder().decode(TokenResponse.self, from: body)
        return SoukTokens(accessToken: answer.access_token, refreshToken: answer.refresh_token,
                          expiresIn: answer.expires_in, scope: answer.scope)
    }

    /// The error an OAuth endpoint's refusal means (RFC 6749 §5.2's JSON, else the status).
    static func oauthError(status: HTTPResponse.Status, body: Data) throws -> SoukClientError {
        if let answer = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) {
            return .oauth(error: answer.error, description: answer.error_description)
        }
        return status == .unauthorized ? .unauthorized : .unexpectedResponse(status: status.code)
    }
}
