/// A client registered by the operator (`souk clients add`, docs/oauth.md "Registered clients"):
/// a public client (no secret, RFC 6749 §2.1) that signs in with the authorization code flow and
/// PKCE to one of its exact redirect URIs, or a TV that uses the device authorization grant
/// (RFC 8628). With `app`, its tokens act only for that app's commerce API.
public struct RegisteredClient: Sendable, Equatable {
    /// What kind of application the client is; decides which redirect URIs and grants it may use.
    public enum Kind: String, Sendable, CaseIterable {
        /// An app on a phone or computer: custom schemes, `https`, and loopback `http` (RFC 8252).
        case native
        /// A web application: `https` redirect URIs only.
        case web
        /// A TV or other device without a browser: the device authorization grant only.
        case tv
    }

    public var clientId: String
    public var name: String
    public var kind: Kind
    public var redirectURIs: [String]
    /// The commerce app (`/commerce/<app>/…`) its tokens are bound to; nil: not bound.
    public var app: String?

    public init(clientId: String, name: String, kind: Kind, redirectURIs: [String], app: String?) {
        self.clientId = clientId
        self.name = name
        self.kind = kind
        self.redirectURIs = redirectURIs
        self.app = app
    }

    /// The registered redirect URI `presented` names, if any: exact string match (RFC 9700 §4.1.3),
    /// except that a native client's loopback URI matches on any port (RFC 8252 §7.3).
    public func redirectURI(matching presented: String) -> String? {
        if redirectURIs.contains(presented) { return presented }
        guard kind == .native, let loopback = RedirectURIRule.loopbackWithoutPort(presented) else { return nil }
        return redirectURIs.contains { RedirectURIRule.loopbackWithoutPort($0) == loopback } ? presented : nil
    }
}
