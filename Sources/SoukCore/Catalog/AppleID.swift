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

    /// The same rule for a `JSONValue`: a string of digits or an integer literal.
    public static func from(json value: JSONValue) -> UInt64? {
        switch value {
        case .string(let text), .number(let text): parse(text)
        default: nil
        }
    }
}
