import Foundation

/// The outer form of a JWS in compact serialization (RFC 7515 §7.1): three base64url parts (header,
/// payload, signature) joined by dots. Checks the form only; a signature is verified elsewhere.
public enum CompactJWS {
    /// Whether `text` has the compact form: exactly three non-empty parts of base64url characters.
    public static func isWellFormed(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "-"), UInt8(ascii: "_"): true
                default: false
                }
            }
        }
    }
}
