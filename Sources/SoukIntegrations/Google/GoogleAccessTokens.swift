import Foundation
import JWTKit
import SoukCore

/// Access tokens for the Android Publisher API, obtained with the OAuth 2.0 JWT bearer grant
/// (RFC 7523) the way Google's own libraries do: an RS256 assertion signed with the service account's
/// key, `scope` androidpublisher, `aud` the token URL, valid one hour. A token is reused until
/// `expires_in` minus a margin, so a burst of purchases costs one token call; callers waiting for the
/// same account share one request.
///
/// A refusal by the token endpoint (400 `invalid_grant`, 401, 403) is about the operator's
/// credentials, never about a purchase: it is a `.credentials` fault. Google's `error` code is kept
/// in the fault (it names the cause, e.g. `invalid_grant`); the assertion and the token never are.
public actor GoogleAccessTokens {
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// Renew this long before Google's expiry (clocks drift; a call may take a while).
    static let margin: TimeInterval = 300
    static let assertionLifetime: Int = 3600

    struct Cached {
        var token: String
        var expires: Date
    }

    let tokenURL: String
    let http: StoreHTTPClient
    let now: @Sendable () -> Date
    var cache: [String: Cached] = [:]
    var inFlight: [String: Task<Cached, any Error>] = [:]

    public init(tokenURL: String, http: StoreHTTPClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.tokenURL = tokenURL
        self.http = http
        self.now = now
    }

    /// A valid access token for `account`, from the cache or a new grant.
    public func token(for account: GoogleServiceAccount) async throws(StoreFault) -> String {
        let key = account.cacheKey
        if let cached = cache[key], cached.expires > now() { return cached.token }
        let task: Task<Cached, any Error>
        if let running = inFlight[key] {
            task = running
        } else {
            task = Task { try await self.grant(account) }
            inFlight[key] = task
        }
        do {
            let fresh = try await task.value
            if inFlight[key] == task { inFlight[key] = nil }
            cache[key] = fresh
            return fresh.token
        } catch {
            if inFlight[key] == task { inFlight[key] = nil }
            throw (error as? StoreFault) ?? StoreFault(.unavailable, "Google token endpoint: \(StoreHTTPClient.describe(error))")
        }
    }

    /// Forgets the cached token of `account` (Google answered 401 with it: revoked or rotated).
    public func invalidate(_ account: GoogleServiceAccount) {
        cache[account.cacheKey] = nil
    }

    struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct TokenAnswer: Decodable {
        var access_token: String?
        var expires_in: Double?
        var error: String?
    }

    nonisolated func grant(_ account: GoogleServiceAccount) async throws -> Cached {
        let issued = now()
        let iat = Int(issued.timeIntervalSince1970)
        let assertion: String
        do {
            let keys = JWTKeyCollection()
            await keys.add(rsa: account.privateKey, digestAlgorithm: .sha256,
                           kid: account.privateKeyId.map { JWKIdentifier(string: $0) })
            assertion = try await keys.sign(Assertion(iss: account.clientEmail, scope: Self.scope, aud: tokenURL,
                                                      iat: iat, exp: iat + Self.assertionLifetime),
                                            kid: account.privateKeyId.map { JWKIdentifier(string: $0) })
        } catch {
            throw StoreFault(.notConfigured, "Cannot sign the token request of the Google service account \(account.clientEmail).")
        }
        let form = "grant_type=" + Self.formEscape("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + Self.formEscape(assertion)
        let response = try await http.send(.POST, tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                                     ("Accept", "application/json")],
                                           body: Array(form.utf8), label: "Google OAuth token")
        let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(response.body))
        switch response.status {
        case 200:
            guard let token = answer?.access_token, !token.isEmpty else {
                throw StoreFault(.unavailable, "Google's token endpoint answered 200 without an access_token.")
            }
            // Google grants an hour; trust a shorter answer, and keep at least half of a short lifetime.
            let lifetime = max(1, answer?.expires_in ?? 3600)
            let usable = lifetime > 2 * Self.margin ? lifetime - Self.margin : lifetime / 2
            return Cached(token: token, expires: issued.addingTimeInterval(usable))
        case 400, 401, 403:
            let code = Self.safeCode(answer?.error) ?? "status \(response.status)"
            throw StoreFault(.credentials, "Google refused the service account \(account.clientEmail) (\(code)): check the key and that it is not disabled.")
        default:
            throw StoreFault(.unavailable, "Google's token endpoint answered an unexpected status \(response.status).")
        }
    }

    /// An OAuth `error` code as Google spells it (`invalid_grant`), or nil if it looks like anything else.
    static func safeCode(_ code: String?) -> String? {
        guard let code, !code.isEmpty, code.count <= 64,
              code.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" || $0 == "." })
        else { return nil }
        return code
    }

    static func formEscape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
