import Foundation

/// Which redirect URIs a registered client may have (RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §4.1):
///
/// - every URI is absolute, at most 2,000 characters, without a fragment;
/// - `web`: `https` only;
/// - `native`: `https`, a private-use scheme in reverse-domain form (it contains a dot, RFC 8252
///   §7.1: `com.example.app:/callback`), or `http://127.0.0.1` / `http://[::1]` with any port
///   (RFC 8252 §7.3; `localhost` is refused, §8.3);
/// - `tv`: none (a TV signs in with the device authorization grant).
public enum RedirectURIRule {
    /// Why `uri` cannot be registered for `kind`; nil when it can.
    public static func problem(_ uri: String, kind: RegisteredClient.Kind) -> String? {
        guard kind != .tv else { return "A tv client has no redirect URI: it signs in with the device authorization grant." }
        guard uri.count <= 2000, !uri.isEmpty, uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
              let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else {
            return "\(uri) is not an absolute URI."
        }
        if components.fragment != nil { return "\(uri) has a fragment; a redirect URI must not (RFC 6749 §3.1.2)." }
        switch scheme {
        case "https":
            guard let host = components.host, !host.isEmpty else { return "\(uri) has no host." }
            return nil
        case "http":
            guard kind == .native else { return "\(uri): a web client's redirect URIs must be https." }
            guard loopbackWithoutPort(uri) != nil else {
                return "\(uri): plain http is only for a native client's loopback address, http://127.0.0.1 or http://[::1] (RFC 8252 §7.3)."
            }
            return nil
        default:
            guard kind == .native else { return "\(uri): a web client's redirect URIs must be https." }
            guard scheme.contains(".") else {
                return "\(uri): a private-use scheme must be a reverse domain name such as com.example.app (RFC 8252 §7.1)."
            }
            return nil
        }
    }

    /// `uri` without its port when it is a loopback `http` URI (`http://127.0.0.1:51004/cb` →
    /// `http://127.0.0.1/cb`); nil for any other URI.
    public static func loopbackWithoutPort(_ uri: String) -> String? {
        guard var components = URLComponents(string: uri), components.scheme?.lowercased() == "http",
              let host = components.host, host == "127.0.0.1" || host == "[::1]" || host == "::1",
              components.user == nil, components.password == nil, components.fragment == nil else { return nil }
        components.port = nil
        return components.string
    }

    /// The Content-Security-Policy source a form answered with a redirect to `uri` needs in its
    /// `form-action`: the origin of an `https` URI, `http://127.0.0.1:*` for loopback, the
    /// scheme (`com.example.app:`) of a private-use URI.
    public static func formActionSource(_ uri: String) -> String {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else { return "'self'" }
        switch scheme {
        case "https":
            return "https://" + (components.host ?? "") + (components.port.map { ":\($0)" } ?? "")
        case "http":
            return "http://" + (components.host ?? "127.0.0.1") + ":*"
        default:
            return scheme + ":"
        }
    }
}
