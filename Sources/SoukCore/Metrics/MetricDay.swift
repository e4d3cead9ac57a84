import Foundation

/// A calendar day in UTC, `YYYY-MM-DD` (docs/metrics.md: every metric is per UTC day, and "on day D"
/// means at D's last instant). Ordered, and stored as its text, which sorts the same way.
public struct MetricDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let ordinal: Int

    public init(ordinal: Int) {
        self.ordinal = ordinal
    }

    /// Parses `YYYY-MM-DD` (years 2000–9999, a real date); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (2000...9999).contains(year),
              let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        let day2 = Self.calendar.dateComponents([.year, .month, .day], from: date)
        guard day2.year == year, day2.month == month, day2.day == day else { return nil }
        self.init(containing: date)
    }

    /// The UTC day `date` falls in.
    public init(containing date: Date) {
        self.ordinal = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// 00:00:00 UTC of the day.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(ordinal) * 86_400) }
    /// 00:00:00 UTC of the next day: the day is `start ..< end`.
    public var end: Date { Date(timeIntervalSince1970: TimeInterval(ordinal + 1) * 86_400) }

    public func adding(days: Int) -> MetricDay { MetricDay(ordinal: ordinal + days) }

    /// The month the day is in.
    public var month: StatementMonth { StatementMonth(containing: start) }

    public var description: String {
        let parts = Self.calendar.dateComponents([.year, .month, .day], from: start)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    public static func < (lhs: MetricDay, rhs: MetricDay) -> Bool { lhs.ordinal < rhs.ordinal }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = MetricDay(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a day YYYY-MM-DD: \(text)"))
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
