/// Apple's identifiers for apps (`AppleItemID`) and their versions (`AppleVersionID`).
///
/// Both are `UInt64` on the device and travel as JSON strings (sometimes numbers). Souk keeps them
/// as `UInt64` everywhere and parses them with one rule.
public enum AppleID {
    /// Parses a decimal identifier: digits only, no sign, no spaces, fits in `UInt64`.
    public static func parse(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return UInt64(text)
    }

    /// Reads an identifier from a decoded JSON value: a string of digits or a non-negative integer.
    public static func from(json value: Any?) -> UInt64? {
        switch value {
        case let string as String:
            return parse(string)
        case let number as Int where number >= 0:
            return UInt64(number)
        case let number as UInt64:
            return number
        case let number as Double where number >= 0 && number.rounded() == number && number < 1.8e19:
            return UInt64(number)
        default:
            return nil
        }
    }

    /// The same rule for a `JSONValue`: a string of digits or a number whose value is a
    /// non-negative integer (`6446000001`, and as JSON Schema counts integers, `6446000001.0` or
    /// `6.446000001e9`).
    public static func from(json value: JSONValue) -> UInt64? {
        switch value {
        case .string(let text): parse(text)
        case .number(let text): parse(text) ?? integer(ofNumberLiteral: text)
        default: nil
        }
    }

    /// The exact value of a JSON number literal with a fraction or an exponent, when it is a
    /// non-negative integer that fits in `UInt64`.
    static func integer(ofNumberLiteral text: String) -> UInt64? {
        let lower = text.lowercased()
        let parts = lower.split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false)
        guard let mantissa = parts.first, !mantissa.hasPrefix("-") else { return nil }
        let exponent = parts.count == 2 ? Int(parts[1]) : 0
        guard let exponent, abs(exponent) <= 40 else { return nil }
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = pieces[0], fraction = pieces.count == 2 ? pieces[1] : ""
        guard (whole + fraction).allSatisfy(\.isASCII), (whole + fraction).allSatisfy(\.isNumber), !whole.isEmpty else { return nil }
        var digits = String(whole + fraction)
        let shift = exponent - fraction.count
        if shift < 0 {
            guard digits.suffix(-shift).allSatisfy({ $0 == "0" }) else { return nil }  // not an integer
            digits.removeLast(min(-shift, digits.count))
        } else {
            digits += String(repeating: "0", count: shift)
        }
        let significant = digits.drop { $0 == "0" }
        return significant.isEmpty ? 0 : parse(String(significant))
    }
}
