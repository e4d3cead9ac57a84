import Foundation
import SoukCore

/// The parameters of `GET <authorization_endpoint>` (MarketplaceKit's “Reauthenticating a person”, RFC 6749 §4.1.1, RFC 7636 §4.3),
/// validated in the order RFC 6749 §4.1.2.1 requires: problems with the client or redirect URI are
/// shown as a page; everything else goes back to the redirect URI as `error=…&state=…`.
///
/// A `client_id` nobody registered is one of MarketplaceKit's devices: its redirect URI is
/// `app-distribution-oauth://`. A registered client (docs/oauth.md, "Registered clients") must name
/// one of its own redirect URIs and use PKCE with S256.
struct AuthorizationRequest: Sendable, Equatable {
    /// The one redirect URI MarketplaceKit uses.
    static let redirectURI = "app-distribution-oauth://"
    /// Where a finished authorization goes: `app-distribution-oauth:?code=…&state=…` (MarketplaceKit's “Reauthenticating a person”).
    static let redirectBase = "app-distribution-oauth:"

    var clientId: String
    /// Where the code goes: `app-distribution-oauth://`, or the registered client's URI.
    var redirectURI: String = Self.redirectURI
    var state: String?
    var codeChallenge: String
    var codeChallengeMethod: PKCE.Method
    var loginHint: String?
    var scope: String
    /// OpenID Connect's `nonce` (Core 1.0 §3.1.2.1), echoed in the ID token.
    var nonce: String? = nil

    /// How a request is refused.
    enum Refusal: Error, Equatable {
        /// Shown as an error page: the redirect URI or client cannot be trusted.
        case page(String)
        /// Sent back to the redirect URI.
        case redirect(OAuthError, state: String?, redirectURI: String = AuthorizationRequest.redirectURI)
    }

    /// The request's `client_id`, before anything else is checked: the caller looks it up among
    /// the registered clients and passes what it found to `parse`.
    static func clientId(_ parameters: [String: String]) -> String? {
        parameters["client_id"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// - Parameter registered: the registered client named by `client_id`; nil for MarketplaceKit's.
    static func parse(_ parameters: [String: String], allowPlain: Bool,
                      registered: RegisteredClient? = nil) -> Result<AuthorizationRequest, Refusal> {
        func value(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let clientId = value("client_id"), clientId.count <= 255,
              clientId.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
            return .failure(.page("The request does not name a valid client_id."))
        }
        let target: String
        if let registered {
            guard registered.kind != .tv else {
                return .failure(.page("This client is a TV: it signs in with a code shown on its screen, at /activate."))
            }
            guard let presented = value("redirect_uri"), let matched = registered.redirectURI(matching: presented) else {
                return .failure(.page("The redirect_uri is not one registered for this client."))
            }
            target = matched
        } else {
            guard value("redirect_uri") == redirectURI else {
                return .failure(.page("The redirect_uri must be \(redirectURI)."))
            }
            target = redirectURI
        }
        let state = value("state")
        if let state, state.count > 512 {
            return .failure(.redirect(OAuthError(.invalidRequest, "state is too long."), state: nil, redirectURI: target))
        }
        guard value("response_type") == "code" else {
            return .failure(.redirect(OAuthError(.unsupportedResponseType, "response_type must be code."), state: state, redirectURI: target))
        }
        guard let challenge = value("code_challenge"), PKCE.isWellFormed(challenge) else {
            return .failure(.redirect(OAuthError(.invalidRequest, "code_challenge must be 43–128 characters of [A-Za-z0-9-._~]."),
                                      state: state, redirectURI: target))
        }
        // A registered client is new code: it uses S256, whatever MarketplaceKit's devices may send.
        let plainAllowed = allowPlain && registered == nil
        let methodText = value("code_challenge_method") ?? "plain"  // RFC 7636 §4.3 default
        guard let method = PKCE.Method(rawValue: methodText), method == .s256 || plainAllowed else {
            return .failure(.redirect(OAuthError(.invalidRequest, "code_challenge_method must be S256\(plainAllowed ? " or plain" : "")."),
                                      state: state, redirectURI: target))
        }
        let hint = value("login_hint").map { String($0.prefix(254)) }
        let nonce = value("nonce")
        if let nonce, nonce.count > 512 {
            return .failure(.redirect(OAuthError(.invalidRequest, "nonce is too long."), state: state, redirectURI: target))
        }
        return .success(AuthorizationRequest(clientId: clientId, redirectURI: target, state: state, codeChallenge: challenge,
                                             codeChallengeMethod: method, loginHint: hint,
                                             scope: value("scope") ?? TokenStoreScope.all, nonce: nonce))
    }

    /// Where the sign-in forms may send the browser: Souk, then the device or the client.
    var formTargets: ContentSecurityPolicy.FormTargets {
        redirectURI == Self.redirectURI ? .soukThenDevice : .soukThenClient(RedirectURIRule.formActionSource(redirectURI))
    }

    /// The parameters to carry through the sign-in form.
    var formFields: [(String, String)] {
        var fields = [("client_id", clientId), ("redirect_uri", redirectURI), ("response_type", "code"),
                      ("code_challenge", codeChallenge), ("code_challenge_method", codeChallengeMethod.rawValue), ("scope", scope)]
        if let state { fields.append(("state", state)) }
        if let loginHint { fields.append(("login_hint", loginHint)) }
        if let nonce { fields.append(("nonce", nonce)) }
        return fields
    }

    /// `app-distribution-oauth:?code=…&state=…` or `…?error=…&error_description=…&state=…`; for a
    /// registered client, its redirect URI with those parameters added to its query.
    static func redirect(_ items: [(String, String?)], to redirectURI: String = AuthorizationRequest.redirectURI) -> String {
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // URLComponents leaves '+' and '&' in values alone in some cases; encode them strictly.
        let query = (components.percentEncodedQuery ?? "")
            .replacingOccurrences(of: "+", with: "%2B")
        guard redirectURI != Self.redirectURI else { return redirectBase + "?" + query }
        return redirectURI + (redirectURI.contains("?") ? "&" : "?") + query
    }
}

/// The scope Souk grants (Apple's example answers `"scope": "all"`).
enum TokenStoreScope {
    static let all = "all"
}
