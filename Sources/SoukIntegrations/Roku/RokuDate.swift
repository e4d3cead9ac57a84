import Foundation

/// Roku's WCF dates: `/Date(1581033062000+0000)/` or `/Date(1581033062000-0800)/`. The number is UTC
/// milliseconds; the offset only says which zone the store displayed, so it does not move the instant.
/// ISO 8601 (with or without fractional seconds) is accepted as well.
public enum RokuDate {
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("/Date("), trimmed.hasSuffix(")/") {
            var inner = trimmed.dropFirst(6).dropLast(2)
            if let sign = inner.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) {
                let offset = inner[sign...].dropFirst()
                guard offset.count == 4, offset.allSatisfy(\.isNumber) else { return nil }
                inner = inner[..<sign]
            }
            guard let ms = Int64(inner) else { return nil }
            return Date(timeIntervalSince1970: Double(ms) / 1000)
        }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: trimmed) { return date }
        return ISO8601DateFormatter().date(from: trimmed)
    }
}
