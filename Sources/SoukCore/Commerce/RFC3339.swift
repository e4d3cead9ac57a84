import Foundation

/// RFC 3339 timestamps (`2026-11-25T04:10:03Z`, `2026-11-25T06:10:03.25+02:00`), as CloudEvents'
/// `time` and the `user-purchases` feed carry them. Parsed by hand: exact, locale-free and cheap.
public enum RFC3339 {
    /// The instant `text` names; nil unless it is `date-time` of RFC 3339 §5.6 (`T` or a space
    /// between date and time, either case; `Z` or a numeric offset; any number of fraction digits).
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ allowed: [UInt8]) -> UInt8? {
            guard index < bytes.count, allowed.contains(bytes[index]) else { return nil }
            index += 1
            return bytes[index - 1]
        }
        guard let year = digits(4), expect([UInt8(ascii: "-")]) != nil, let month = digits(2), expect([UInt8(ascii: "-")]) != nil,
              let day = digits(2), expect([UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")]) != nil,
              let hour = digits(2), expect([UInt8(ascii: ":")]) != nil, let minute = digits(2),
              expect([UInt8(ascii: ":")]) != nil, let second = digits(2) else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour <= 23, minute <= 59,
              second <= 60 else { return nil }
        var fraction = 0.0
        if expect([UInt8(ascii: ".")]) != nil {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            guard index > start, let value = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
            fraction = value
        }
        var offset = 0
        switch expect([UInt8(ascii: "Z"), UInt8(ascii: "z"), UInt8(ascii: "+"), UInt8(ascii: "-")]) {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            break
        case let sign? :
            guard let offsetHours = digits(2), expect([UInt8(ascii: ":")]) != nil, let offsetMinutes = digits(2),
                  offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offset = (offsetHours * 60 + offsetMinutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        // A leap second is read as the last second of its minute's end (as Foundation does).
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// `2026-11-25T04:10:03Z` (UTC, whole seconds).
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil and its inverse (proleptic Gregorian, day 0 = 1970-01-01).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
