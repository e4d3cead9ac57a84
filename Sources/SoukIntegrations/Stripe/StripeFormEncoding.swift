/// Stripe's request body encoding: `application/x-www-form-urlencoded`, with nested parameters spelt
/// as bracketed keys (`line_items[0][price_data][currency]=eur`, `metadata[order]=o_1`).
///
/// Each byte of the UTF-8 text is kept when it is an ASCII letter or digit or one of `*-._`, a space
/// becomes `+`, and every other byte becomes `%XX` (the WHATWG URL standard's form serializer).
/// In keys, `[` and `]` are kept as they are, as Stripe's own libraries send them and its
/// documentation writes them; Stripe reads the brackets the same whether or not they are escaped.
public enum StripeFormEncoding {
    /// `key=value` pairs joined by `&`, in the order given (a fixed order keeps an idempotent retry's
    /// body byte-for-byte the same).
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0, keepingBrackets: true) + "=" + escape($0.1, keepingBrackets: false) }.joined(separator: "&")
    }

    static func escape(_ text: String, keepingBrackets: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case _ where keepingBrackets && (byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")):
                output.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                output.append(byte)
            case UInt8(ascii: " "):
                output.append(UInt8(ascii: "+"))
            default:
                appendEscaped(byte, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// One path segment (an object id in `/v1/checkout/sessions/<id>`): letters, digits, `-`, `_` and
    /// `~` kept, everything else (dots too, so `..` stays a name) percent-encoded, so an id can never
    /// reach another path.
    static func pathSegment(_ text: String) -> String {
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                appendEscaped(byte, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
