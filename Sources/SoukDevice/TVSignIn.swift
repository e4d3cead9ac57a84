import Foundation

/// A TV's sign-in: the OAuth 2.0 Device Authorization Grant (RFC 8628). The TV asks the
/// authorization server's `device_authorization_endpoint` for a code, shows `user_code` and where to
/// type it, then polls the token endpoint every `interval` seconds (5 s more after each
/// `slow_down`) until the person approved, denied, or the code expired.
public struct TVSignIn: Sendable {
    let http: DeviceHTTP
    let say: @Sendable (String) -> Void
    /// Waits between polls (a test passes a short one; the server's `interval` otherwise).
    let wait: @Sendable (Duration) async throws -> Void

    public init(http: DeviceHTTP, say: @escaping @Sendable (String) -> Void,
                wait: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.http = http
        self.say = say
        self.wait = wait
    }

    /// What the device authorization endpoint answered (RFC 8628 §3.2).
    public struct Authorization: Sendable, Equatable {
        public var deviceCode: String
        public var userCode: String
        public var verificationURI: String
        public var verificationURIComplete: String?
        public var expiresIn: Int
        public var interval: Int
    }

    /// The device authorization endpoint of `origin`'s OAuth metadata (`device_authorization_endpoint`).
    public func endpoints(origin: String) async throws -> (deviceAuthorization: String, token: String) {
        let answer = try await http.send(.GET, origin + "/.well-known/oauth-authorization-server")
        guard answer.status == 200 else { throw DeviceError(.oauthTokenError, "no OAuth metadata at \(origin) (status \(answer.status))") }
        let object = try http.json(answer, "OAuth metadata")
        guard let device = object["device_authorization_endpoint"] as? String, let token = object["token_endpoint"] as? String,
              MarketplaceClient.origin(of: device) != nil, MarketplaceClient.origin(of: token) != nil else {
            throw DeviceError(.oauthTokenError, "the OAuth metadata of \(origin) has no device_authorization_endpoint")
        }
        return (device, token)
    }

    public func authorize(endpoint: String, clientId: String, scope: String?) async throws -> Authorization {
        var fields = [("client_id", clientId)]
        if let scope { fields.append(("scope", scope)) }
        let answer = try await http.send(.POST, endpoint, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                         body: MarketplaceClient.form(fields))
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
        guard answer.status == 200 else {
            throw DeviceError(.oauthTokenError, "the device authorization endpoint answered \(answer.status) \(object["error"] as? String ?? "")")
        }
        guard let deviceCode = object["device_code"] as? String, let userCode = object["user_code"] as? String,
              let verification = object["verification_uri"] as? String, let expiresIn = object["expires_in"] as? Int else {
            throw DeviceError(.protocolViolation, "the device authorization answer lacks device_code, user_code, verification_uri or expires_in")
        }
        // RFC 8628 §3.2: "If no value is provided, clients MUST use 5 as the default."
        return Authorization(deviceCode: deviceCode, userCode: userCode, verificationURI: verification,
                             verificationURIComplete: object["verification_uri_complete"] as? String,
                             expiresIn: expiresIn, interval: object["interval"] as? Int ?? 5)
    }

    /// Polls the token endpoint (RFC 8628 §3.4–3.5) until tokens, a refusal, or the code's expiry.
    public func poll(endpoint: String, clientId: String, authorization: Authorization, now: @Sendable () -> Date = { Date() }) async throws -> DeviceState.Tokens {
        var interval = authorization.interval
        let deadline = now().addingTimeInterval(TimeInterval(authorization.expiresIn))
        while now() < deadline {
            try await wait(.seconds(interval))
            let answer = try await http.send(.POST, endpoint, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                             body: MarketplaceClient.form([
                                                 ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                                                 ("device_code", authorization.deviceCode), ("client_id", clientId),
                                             ]))
            let object = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
            if answer.status == 200, let access = object["access_token"] as? String {
                let expires = (object["expires_in"] as? Int).map { now().addingTimeInterval(TimeInterval($0)) }
                return DeviceState.Tokens(accessToken: access, refreshToken: object["refresh_token"] as? String, expiresAt: expires)
            }
            switch object["error"] as? String {
            case "authorization_pending": continue
            case "slow_down":
                interval += 5
                say("The server asked to poll more slowly: every \(interval) s.")
            case "access_denied": throw DeviceError(.oauthTokenError, "the person denied the sign-in (access_denied)")
            case "expired_token": throw DeviceError(.oauthTokenError, "the code expired before it was approved (expired_token)")
            case let error:
                // A server that cannot answer now is not a verdict: poll again.
                if answer.status >= 500 { continue }
                throw DeviceError(.oauthTokenError, "the token endpoint refused the device code (\(answer.status) \(error ?? "no error"))")
            }
        }
        throw DeviceError(.oauthTokenError, "the code expired before it was approved")
    }
}
