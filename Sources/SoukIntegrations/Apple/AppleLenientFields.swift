import Foundation

/// How Apple's Python library reads a payload field it knows: it structures the decoded JSON with
/// cattrs, which converts rather than refuses — `"1"` becomes the integer 1, `123` the string
/// "123", `1.5` the integer 1. Souk converts the same way before decoding, so a payload Apple's
/// library accepts is not refused for a field's JSON type (and vice versa a value no conversion
/// fits still refuses the payload).
public enum AppleFieldKind: Sendable {
    case string, integer, boolean
}

enum AppleLenientFields {
    /// `payload` with each known field converted to its kind where Python would convert it.
    static func normalize(_ payload: [String: Any], kinds: [String: AppleFieldKind]) -> [String: Any] {
        var result = payload
        for (name, kind) in kinds {
            guard let value = payload[name], !(value is NSNull) else { continue }
            if let converted = convert(value, to: kind) { result[name] = converted }
        }
        return result
    }

    static func convert(_ value: Any, to kind: AppleFieldKind) -> Any? {
        switch kind {
        case .string:
            guard let number = value as? NSNumber else { return nil }
            return pythonString(number)
        case .integer:
            if let text = value as? String {
                return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)).map { NSNumber(value: $0) }
            }
            guard let number = value as? NSNumber else { return nil }
            if isBoolean(number) { return NSNumber(value: number.boolValue ? 1 : 0) }
            guard isFloatingPoint(number) else { return nil }
            let double = number.doubleValue
            guard double.isFinite, abs(double) < 9.2e18 else { return nil }
            return NSNumber(value: Int64(double.rounded(.towardZero)))
        case .boolean:
            switch value {
            case let number as NSNumber: return isBoolean(number) ? nil : NSNumber(value: number.doubleValue != 0)
            case let text as String: return NSNumber(value: !text.isEmpty)
            case let list as [Any]: return NSNumber(value: !list.isEmpty)
            case let object as [String: Any]: return NSNumber(value: !object.isEmpty)
            default: return nil
            }
        }
    }

    /// JSON `true`/`false` come as a boolean subclass of NSNumber on every platform.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(describing: type(of: number)).contains("Boolean")
    }

    private static func isFloatingPoint(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "d" || type == "f"
    }

    /// Python's `str()` of a JSON number or boolean.
    private static func pythonString(_ number: NSNumber) -> String {
        if isBoolean(number) { return number.boolValue ? "True" : "False" }
        if isFloatingPoint(number) { return "\(number.doubleValue)" }
        return "\(number.int64Value)"
    }
}
