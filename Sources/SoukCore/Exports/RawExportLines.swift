import Foundation

/// The lines of the raw exports, byte for byte the same for the same row: the header (CSV only)
/// and one line per row, each ending in its line break (CRLF in CSV, as RFC 4180 says; `\n` in JSON
/// Lines). Values come in the order of `RawExportKind.columns`.
public enum RawExportLines {
    /// The CSV header line; nil for JSON Lines (which has none).
    public static func header(_ kind: RawExportKind, format: ExportFormat) -> String? {
        format == .csv ? kind.columns.joined(separator: ",") + "\r\n" : nil
    }

    /// One row. `values` holds one value per column of `kind`.
    public static func line(_ values: [ExportValue], kind: RawExportKind, format: ExportFormat) -> String {
        precondition(values.count == kind.columns.count, "an export row has one value per column")
        switch format {
        case .csv:
            return values.map(csvField).joined(separator: ",") + "\r\n"
        case .jsonl:
            let fields = zip(kind.columns, values).map { "\"\($0)\":\(jsonValue($1))" }
            return "{" + fields.joined(separator: ",") + "}\n"
        }
    }

    static func csvField(_ value: ExportValue) -> String {
        switch value {
        case .text(let text): MetricsExportLines.csvField(text)
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .time(let date): ExportTime.iso8601(date)
        case .null: ""
        }
    }

    static func jsonValue(_ value: ExportValue) -> String {
        switch value {
        case .text(let text): MetricsExportLines.quoted(text)
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .time(let date): "\"" + ExportTime.iso8601(date) + "\""
        case .null: "null"
        }
    }
}

/// Instants as the exports write them: UTC, ISO 8601, always with milliseconds (the stores' dates
/// carry them), so every time has the same width and sorts as text.
public enum ExportTime {
    public static func iso8601(_ date: Date) -> String {
        // To the microsecond first (what the databases keep), then down to the millisecond, so that
        // 0.123 s held as 0.12299999… is still .123.
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let milliseconds = microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm), exact for any year.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):\(pad(inDay / 60_000 % 60, 2)):"
            + "\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }
}
