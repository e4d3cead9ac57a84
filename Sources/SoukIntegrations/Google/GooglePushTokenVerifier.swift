import Foundation
import JWTKit
import SoukCore

/// Checks the OIDC token Pub/Sub attaches to an authenticated push (`Authorization: Bearer <JWT>`):
/// RS256, signed by one of Google's keys (the JWKS at `StoreEndpoints.googlePushCertsURL`), `iss`
/// `accounts.google.com` or `https://accounts.google.com`, `aud` the configured audience, `email` the
/// configured push service account (when set) with `email_verified`, and not expired (a minute's
/// leeway for clocks). This is what stops anyone who learnt the push URL's token from forging RTDN.
///
/// Keys are cached for the JWKS answer's `Cache-Control: max-age` (an hour when absent); a token
/// signed with a key id not in the cache refreshes them at once, at most once a minute, since Google
/// rotates its keys ahead of use.
public actor GooglePushTokenVerifier {
    static let issuers: Set<String> = ["accounts.google.com", "https://accounts.google.com"]
    static let leeway: TimeInterval = 60
    static let minimumRefresh: TimeInterval = 60

    let certsURL: String
    let http: StoreHTTPClient
    let now: @Sendable () -> Date
    var keys: JWTKeyCollection?
    var keyIds: Set<String> = []
    var fetchedAt: Date?
    var validUntil: Date?

    public init(certsURL: String, http: StoreHTTPClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.certsURL = certsURL
        self.http = http
        self.now = now
    }

    /// Whether the push carries a valid Google token for `audience` (and `email`, when set). Fits the RTDN
    /// route's `pushToken` closure: `authorization` is the bearer JWT, with or without its `Bearer ` prefix.
    public func verify(authorization: String?, audience: String, email: String?) async -> Bool {
        (try? await check(authorization: authorization, audience: audience, email: email)) != nil
    }

    /// Why a push token is not accepted.
    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    struct Claims: JWTPayload {
        var iss: String?
        var aud: AudienceClaim?
        var exp: Double?
        var iat: Double?
        var email: String?
        var email_verified: FlexibleBool?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// `email_verified` is a JSON boolean in Google's tokens; some issuers write the string "true".
    struct FlexibleBool: Codable, Sendable {
        var value: Bool
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let bool = try? c.decode(Bool.self) { value = bool } else { value = (try? c.decode(String.self)) == "true" }
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(value)
        }
    }

    struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    /// The same check, saying why a token is refused (for the operator's log; never quotes the token).
    /// Returns the verified `email`, if any.
    @discardableResult
    public func check(authorization: String?, audience: String, email: String?) async throws(Rejection) -> String? {
        guard var token = authorization?.trimmingCharacters(in: .whitespaces), !token.isEmpty else {
            throw Rejection("The push has no bearer token.")
        }
        if token.lowercased().hasPrefix("bearer ") { token = String(token.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = GoogleRTDNMessage.base64(String(parts[0])),
              let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw Rejection("The push bearer token is not a JWT.")
        }
        guard header.alg == "RS256" else { throw Rejection("The push token is not signed with RS256.") }
        guard let kid = header.kid, !kid.isEmpty else { throw Rejection("The push token names no signing key (kid).") }
        let collection = try await keys(for: kid)
        let claims: Claims
        do { claims = try await collection.verify(token, as: Claims.self) } catch {
            throw Rejection("The push token's signature is not Google's.")
        }
        guard let iss = claims.iss, Self.issuers.contains(iss) else { throw Rejection("The push token's issuer is not accounts.google.com.") }
        guard let aud = claims.aud, aud.value.contains(audience) else {
            throw Rejection("The push token's audience is not the configured push audience.")
        }
        let now = now().timeIntervalSince1970
        guard let exp = claims.exp, exp + Self.leeway > now else { throw Rejection("The push token has expired.") }
        if let iat = claims.iat, iat - Self.leeway > now { throw Rejection("The push token is issued in the future.") }
        if let email {
            guard claims.email?.lowercased() == email.lowercased() else {
                throw Rejection("The push token is not for the configured push service account.")
            }
            guard claims.email_verified?.value == true else { throw Rejection("The push token's email is not verified.") }
        }
        return claims.email
    }

    struct JWKSKeys: Decodable {
        struct Key: Decodable { var kid: String? }
        var keys: [Key]?
    }

    func keys(for kid: String) async throws(Rejection) -> JWTKeyCollection {
        let now = now()
        let fresh = validUntil.map { $0 > now } ?? false
        let mayRefresh = fetchedAt.map { now.timeIntervalSince($0) >= Self.minimumRefresh } ?? true
        if let keys, fresh, keyIds.contains(kid) { return keys }
        if let keys, !mayRefresh {
            guard keyIds.contains(kid) else { throw Rejection("The push token is signed with a key Google does not publish.") }
            return keys
        }
        let response: StoreResponse
        do { response = try await http.send(.GET, certsURL, headers: [("Accept", "application/json")], label: "GET Google OIDC certs") } catch {
            if let keys, keyIds.contains(kid) { return keys }  // Google's keys unreachable: the cached ones still hold.
            throw Rejection("Google's signing keys cannot be fetched (\(error.detail)).")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        let collection = JWTKeyCollection()
        guard response.status == 200, let listed = try? JSONDecoder().decode(JWKSKeys.self, from: Data(response.body)),
              (try? await collection.add(jwksJSON: text)) != nil else {
            if let keys, keyIds.contains(kid) { return keys }
            throw Rejection("Google's signing keys answer cannot be read (status \(response.status)).")
        }
        keys = collection
        keyIds = Set((listed.keys ?? []).compactMap(\.kid))
        fetchedAt = now
        validUntil = now.addingTimeInterval(Self.maxAge(response.header("Cache-Control")) ?? 3600)
        guard keyIds.contains(kid) else { throw Rejection("The push token is signed with a key Google does not publish.") }
        return collection
    }

    static func maxAge(_ cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = TimeInterval(parts[1]) { return seconds }
        }
        return nil
    }
}
