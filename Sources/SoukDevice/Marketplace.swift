import Crypto
import Foundation
import SoukCore

/// What a device learns from a marketplace's host: the configuration file (spec §1, fetched
/// without following redirects) and the OAuth metadata (spec §2.1).
public struct MarketplaceEndpoints: Sendable {
    public var restore: String
    public var updatesURL: String
    /// Hours between update checks.
    public var pollingInterval: Int
    public var dynamicLicenseURL: String
    public var licenseRenewalURL: String
    public var licenseResolutionURL: String?
    public var encryptionCertificateURL: String
    public var signingCertificateURL: String
}

public enum MarketplaceClient {
    /// `https://host[:port]` of a URL.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// An `http(s)://host…` URL, the only kind the device sends requests to.
    static func isAbsoluteURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host else { return false }
        return ["http", "https"].contains(scheme) && !host.isEmpty
    }

    static func endpoints(_ object: [String: Any], source: String) throws -> MarketplaceEndpoints {
        func url(_ value: Any?, _ name: String) throws -> String {
            guard let text = value as? String, isAbsoluteURL(text) else {
                throw DeviceError(.protocolViolation, "\(source): \(name) must be a URL string")
            }
            return text
        }
        guard let updates = object["updates"] as? [String: Any] else { throw DeviceError(.protocolViolation, "\(source): updates must be an object") }
        guard let license = object["license"] as? [String: Any] else { throw DeviceError(.protocolViolation, "\(source): license must be an object") }
        guard let hours = updates["pollingInterval"] as? Int, hours >= 1 else {
            throw DeviceError(.protocolViolation, "\(source): updates.pollingInterval must be a whole number of hours")
        }
        return MarketplaceEndpoints(
            restore: try url(object["restore"], "restore"), updatesURL: try url(updates["url"], "updates.url"), pollingInterval: hours,
            dynamicLicenseURL: try url(license["dynamicLicenseURL"], "license.dynamicLicenseURL"),
            licenseRenewalURL: try url(license["licenseRenewalURL"], "license.licenseRenewalURL"),
            licenseResolutionURL: license["licenseResolutionURL"] as? String,
            encryptionCertificateURL: try url(license["encryptionCertificateURL"], "license.encryptionCertificateURL"),
            signingCertificateURL: try url(license["signingCertificateURL"], "license.signingCertificateURL"))
    }

    /// `/.well-known/marketplace-kit` of `origin`, with the app's entry of `overridesByAppleItemID` applied.
    public static func configuration(_ http: DeviceHTTP, origin: String, appleItemId: UInt64?) async throws -> MarketplaceEndpoints {
        let answer = try await http.send(.GET, origin + "/.well-known/marketplace-kit")
        guard answer.status == 200 else {
            throw DeviceError(.protocolViolation, "\(origin)/.well-known/marketplace-kit answered \(answer.status)\((300..<400).contains(answer.status) ? " (a redirect: iOS does not follow it)" : "")")
        }
        let object = try http.json(answer, "/.well-known/marketplace-kit")
        if let appleItemId, let overrides = object["overridesByAppleItemID"] as? [String: Any],
           let override = overrides[String(appleItemId)] as? [String: Any] {
            return try endpoints(override, source: "overridesByAppleItemID.\(appleItemId)")
        }
        return try endpoints(object, source: "/.well-known/marketplace-kit")
    }

    public struct OAuthMetadata: Sendable {
        public var authorizationEndpoint: String
        public var tokenEndpoint: String
        public var jwksURI: String?
    }

    public static func oauthMetadata(_ http: DeviceHTTP, origin: String) async throws -> OAuthMetadata {
        let answer = try await http.send(.GET, origin + "/.well-known/oauth-authorization-server")
        guard answer.status == 200 else { throw DeviceError(.oauthTokenError, "no OAuth metadata at \(origin) (status \(answer.status))") }
        let object = try http.json(answer, "OAuth metadata")
        func url(_ name: String, required: Bool) throws -> String? {
            guard let value = object[name] else {
                if required { throw DeviceError(.oauthTokenError, "the OAuth metadata has no \(name)") }
                return nil
            }
            guard let text = value as? String, isAbsoluteURL(text) else {
                throw DeviceError(.oauthTokenError, "the OAuth metadata's \(name) is not an absolute URL")
            }
            return text
        }
        guard let authorize = try url("authorization_endpoint", required: true), let token = try url("token_endpoint", required: true) else {
            throw DeviceError(.oauthTokenError, "the OAuth metadata has no authorization_endpoint or token_endpoint")
        }
        return OAuthMetadata(authorizationEndpoint: authorize, tokenEndpoint: token, jwksURI: try url("jwks_uri", required: false))
    }

    static func form(_ fields: [(String, String)]) -> [UInt8] {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return Array(fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&").utf8)
    }

    /// POSTs a grant to the token endpoint; the tokens, or an `oauthTokenError` naming the OAuth error.
    public static func token(_ http: DeviceHTTP, endpoint: String, _ fields: [(String, String)]) async throws -> DeviceState.Tokens {
        let answer = try await http.send(.POST, endpoint, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form(fields))
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
        guard answer.status == 200, let access = object["access_token"] as? String else {
            throw DeviceError(.oauthTokenError, "the token endpoint refused the grant (\(answer.status) \(object["error"] as? String ?? ""))")
        }
        let expires = (object["expires_in"] as? Int).map { Date().addingTimeInterval(TimeInterval($0)) }
        return DeviceState.Tokens(accessToken: access, refreshToken: object["refresh_token"] as? String, expiresAt: expires)
    }

    /// Reauthentication (spec §2.3): the authorization endpoint with `login_hint`, PKCE S256,
    /// `state` and the fixed redirect URI; the sign-in form filled like a browser would; `state`
    /// checked; the code exchanged.
    public static func signIn(_ http: DeviceHTTP, metadata: OAuthMetadata, clientId: String, email: String,
                              password: String) async throws -> DeviceState.Tokens {
        var verifierBytes = [UInt8](repeating: 0, count: 32)
        for index in verifierBytes.indices { verifierBytes[index] = UInt8.random(in: 0...255) }
        let verifier = Base64URL.encode(Data(verifierBytes))
        let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        let state = UUID().uuidString
        guard var components = URLComponents(string: metadata.authorizationEndpoint) else {
            throw DeviceError(.oauthTokenError, "the authorization_endpoint is not a URL")
        }
        components.queryItems = [
            URLQueryItem(name: "login_hint", value: email), URLQueryItem(name: "client_id", value: clientId),
            URLQueryItem(name: "code_challenge_method", value: "S256"), URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "redirect_uri", value: "app-distribution-oauth://"),
        ]
        guard let authorizeURL = components.string else { throw DeviceError(.oauthTokenError, "the authorization_endpoint is not a URL") }
        let page = try await http.send(.GET, authorizeURL)
        guard page.status == 200 else { throw DeviceError(.oauthTokenError, "the authorization endpoint answered \(page.status)") }
        let html = page.text
        // The browser's part: the form's action and hidden fields, the cookies it was given.
        guard let formStart = html.range(of: "<form method=\"post\"") ?? html.range(of: "<form") else {
            throw DeviceError(.oauthTokenError, "the sign-in page has no form; open \(authorizeURL) in a browser")
        }
        let form = String(html[formStart.lowerBound...].prefix { $0 != ">" })
        let action = Self.attribute("action", in: form) ?? components.path
        var fields: [(String, String)] = []
        var rest = html[formStart.lowerBound...]
        while let input = rest.range(of: "<input") {
            let tag = String(rest[input.lowerBound...].prefix { $0 != ">" })
            if Self.attribute("type", in: tag) == "hidden", let name = Self.attribute("name", in: tag) {
                fields.append((name, Self.attribute("value", in: tag) ?? ""))
            }
            rest = rest[input.upperBound...]
        }
        fields.append(("email", email))
        fields.append(("password", password))
        let cookies = page.headers["set-cookie"].compactMap { $0.split(separator: ";").first.map(String.init) }.joined(separator: "; ")
        let target = action.hasPrefix("http") ? action : (origin(of: metadata.authorizationEndpoint) ?? "") + action
        let posted = try await http.send(.POST, target, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookies)],
                                         body: Self.form(fields))
        guard (300..<400).contains(posted.status), let location = posted.header("location"), location.hasPrefix("app-distribution-oauth:") else {
            throw DeviceError(.oauthTokenError, "sign-in did not redirect to app-distribution-oauth: (status \(posted.status); wrong password?)")
        }
        var redirect = URLComponents()
        redirect.percentEncodedQuery = location.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
        let query = redirect.queryItems ?? []
        guard query.first(where: { $0.name == "state" })?.value == state else {
            throw DeviceError(.oauthTokenError, "the redirect's state does not match the one sent")
        }
        guard let code = query.first(where: { $0.name == "code" })?.value else { throw DeviceError(.oauthTokenError, "the redirect carries no code") }
        return try await token(http, endpoint: metadata.tokenEndpoint, [
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier), ("client_id", clientId),
            ("redirect_uri", "app-distribution-oauth://"),
        ])
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        guard let range = tag.range(of: " \(name)=\"") else { return nil }
        let value = String(tag[range.upperBound...].prefix { $0 != "\"" })
        return value.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
    }
}
