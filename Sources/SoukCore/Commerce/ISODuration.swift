import Foundation

/// An ISO 8601 duration of whole years, months, weeks and days (`P1W`, `P1M`, `P30D`, `P1Y`) —
/// the only kinds a subscription period or a non-renewing duration has.
public struct ISODuration: Sendable, Hashable, CustomStringConvertible {
    public var years: Int
    public var months: Int
    public var weeks: Int
    public var days: Int

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
    }

    /// Parses `PnYnMnWnD` (each part optional, at least one, no time part); nil otherwise.
    public init?(_ text: String) {
        guard text.hasPrefix("P"), text.count > 1 else { return nil }
        var result = ISODuration()
        var digits = ""
        var seen: [Character] = []
        for character in text.dropFirst() {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            guard let value = Int(digits), digits.count <= 4 else { return nil }
            let order: [Character] = ["Y", "M", "W", "D"]
            guard let position = order.firstIndex(of: character),
                  seen.allSatisfy({ order.firstIndex(of: $0)! < position }) else { return nil }
            switch character {
            case "Y": result.years = value
            case "M": result.months = value
            case "W": result.weeks = value
            default: result.days = value
            }
            seen.append(character)
            digits = ""
        }
        guard digits.isEmpty, !seen.isEmpty, result != ISODuration() else { return nil }
        self = result
    }

    public var description: String {
        var text = "P"
        if years > 0 { text += "\(years)Y" }
        if months > 0 { text += "\(months)M" }
        if weeks > 0 { text += "\(weeks)W" }
        if days > 0 { text += "\(days)D" }
        return text
    }

    /// `date` moved forward by this duration on the UTC calendar (Jan 31 + P1M = Feb 28/29).
    public func added(to date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var components = DateComponents()
        components.year = years
        components.month = months
        components.day = weeks * 7 + days
        return calendar.date(byAdding: components, to: date) ?? date
    }

    /// `date` moved back by this duration on the UTC calendar (Mar 31 − P1M = Feb 28/29).
    public func subtracted(from date: Date) -> Date {
        ISODuration(years: -years, months: -months, weeks: -weeks, days: -days).added(to: date)
    }
}
