/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) to and from seconds since 1970.
public enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats whole seconds since 1970 as an IMF-fixdate.
    public static func format(_ seconds: Int64) -> String {
        let dayNumber = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - dayNumber * 86_400
        let (year, month, day) = civil(fromDays: dayNumber)
        let weekday = days[Int(((dayNumber % 7) + 7) % 7)]
        return "\(weekday), \(pad(day)) \(months[month - 1]) \(year) \(pad(Int(secondOfDay / 3600))):\(pad(Int(secondOfDay % 3600 / 60))):\(pad(Int(secondOfDay % 60))) GMT"
    }

    /// Parses an IMF-fixdate; `nil` for anything else (obsolete formats are not worth the risk).
    public static func parse(_ text: String) -> Int64? {
        let parts = text.trimmingSpaces.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", parts[0].hasSuffix(","),
              let day = Int(parts[1]), (1...31).contains(day),
              let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]), (1970...9999).contains(year) else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
              (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second) else { return nil }
        let dayNumber = days(fromCivil: year, month: monthIndex + 1, day: day)
        return dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    // Howard Hinnant's days-from-civil algorithms, exact for the proleptic Gregorian calendar.
    private static func days(fromCivil year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays value: Int64) -> (Int, Int, Int) {
        let z = value + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
