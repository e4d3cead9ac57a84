import Foundation

/// Where the payment-provider API finds the signed-in person's token (spec §3): an access token or
/// a Souk OpenID Connect ID token. `Authorization: Bearer` first (RFC 6750 §2.1), else the
/// `access_token` query parameter (RFC 6750 §2.3), else `id_token`, else Zapp's `ctx` query
/// parameter — base64 (or base64url, padded or not) of a JSON object of context keys, whose
/// `access_token` (else `id_token`) key holds it. Which kind a token is, its shape says (`isJWT`).
public enum CommerceToken {
    /// The token, or nil when the request carries none. `query`: decoded query parameters.
    public static func find(authorization: String?, query: [String: String]) -> String? {
        if let authorization, let token = bearer(authorization) { return token }
        for name in contextKeys { if let token = query[name], !token.isEmpty { return token } }
        if let context = query["ctx"], let token = fromContext(context) { return token }
        return nil
    }

    /// The context keys that carry the person's token, in the order they are tried.
    static let contextKeys = ["access_token", "id_token"]

    /// True for a JWS in compact form (three base64url parts, the header a JSON object): an ID
    /// token. Souk's access tokens are opaque (`sat_…`) and never contain a dot.
    public static func isJWT(_ token: String) -> Bool {
        token.hasPrefix("eyJ") && token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2
    }

    /// The credentials of `Bearer <token>` (the scheme is case-insensitive). On the hot path:
    /// byte work only, no Foundation string scanning.
    static func bearer(_ authorization: String) -> String? {
        var utf8 = Substring(authorization).utf8[...]
        while let first = utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { utf8 = utf8.dropFirst() }
        while let last = utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { utf8 = utf8.dropLast() }
        let scheme = Array("bearer".utf8)
        guard utf8.count > scheme.count + 1,
              zip(utf8.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 }),
              utf8.dropFirst(scheme.count).first == UInt8(ascii: " ") else { return nil }
        var token = utf8.dropFirst(scheme.count + 1)
        while let first = token.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { token = token.dropFirst() }
        return token.isEmpty ? nil : String(Substring(token))
    }

    /// `access_token` (else `id_token`) of a `ctx` value.
    static func fromContext(_ context: String) -> String? {
        guard let bytes = Base64URL.decodeEitherAlphabet(context).map(Array.init), let document = try? JSONValue.parse(bytes) else {
            return nil
        }
        for name in contextKeys {
            if case .string(let token)? = document[name], !token.isEmpty { return token }
        }
        return nil
    }
}
