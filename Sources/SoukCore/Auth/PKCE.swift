import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636).
public enum PKCE {
    /// `S256` (what iOS sends) or `plain`.
    public enum Method: String, Sendable, CaseIterable {
        case s256 = "S256"
        case plain
    }

    /// 43–128 characters of `[A-Z a-z 0-9 - . _ ~]`: the rule for both verifiers and challenges.
    public static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
    }

    /// The challenge a verifier yields under `method`.
    public static func challenge(for verifier: String, method: Method) -> String {
        switch method {
        case .plain: verifier
        case .s256: Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        }
    }

    /// True when `verifier` is well formed and yields `challenge` (compared in constant time).
    public static func verify(verifier: String, challenge: String, method: Method) -> Bool {
        guard isWellFormed(verifier) else { return false }
        return ConstantTime.equal(Self.challenge(for: verifier, method: method), challenge)
    }
}

/// base64url without padding (RFC 4648 §5), as OAuth and JOSE use it.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes either alphabet (standard or URL), padded or not, ignoring whitespace: what Zapp's
    /// `ctx`, a CloudEvent's `data_base64` and a JWS segment may hold in the wild. nil otherwise.
    public static func decodeEitherAlphabet(_ text: some StringProtocol) -> Data? {
        var base64 = String(text.filter { !$0.isWhitespace }.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// Decodes unpadded (or padded) base64url; nil for anything else.
    public static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !text.contains("+"), !text.contains("/") else { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Comparisons whose time does not depend on where two secrets differ.
public enum ConstantTime {
    public static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
