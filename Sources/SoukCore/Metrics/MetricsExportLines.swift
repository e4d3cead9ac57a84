import Foundation

/// The lines of `souk export metrics` and `souk export cohorts` (docs/metrics.md, "Exports"), in
/// their documented, stable shapes. JSON keys come in a fixed order, so a line is byte-for-byte the
/// same every time; money is integer minor units of the reporting currency, counts are integers.
public enum MetricsExportLines {
    /// `{"date":"2026-10-01","app":"…","metric":"mrr","value":1234,"currency":"USD"}`; `churned` carries
    /// `"breakdown":{"voluntary":…,"billing":…,"refund":…,"other":…}` and no currency.
    public static func jsonl(_ metric: ReportedMetric, app: String) -> String {
        var fields = ["\"date\":\"\(metric.day)\"", "\"app\":\(quoted(app))", "\"metric\":\"\(metric.metric.rawValue)\"",
                      "\"value\":\(metric.value)"]
        if let currency = metric.currency { fields.append("\"currency\":\(quoted(currency))") }
        if let breakdown = metric.breakdown {
            let reasons = ChurnReason.allCases.map { "\"\($0.rawValue)\":\(breakdown[$0.rawValue] ?? 0)" }
            fields.append("\"breakdown\":{\(reasons.joined(separator: ","))}")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The CSV header of metrics: the churn's reasons in columns of their own (empty for other metrics).
    public static let csvHeader = "date,app,metric,value,currency," + ChurnReason.allCases.map { "churned_\($0.rawValue)" }.joined(separator: ",")

    /// One CSV row of metrics, in the columns of `csvHeader`.
    public static func csv(_ metric: ReportedMetric, app: String) -> String {
        let reasons = ChurnReason.allCases.map { reason in metric.breakdown.map { String($0[reason.rawValue] ?? 0) } ?? "" }
        return ([metric.day.description, csvField(app), metric.metric.rawValue, String(metric.value), metric.currency ?? ""] + reasons)
            .joined(separator: ",")
    }

    /// `{"cohort":"2026-08","month":2,"accounts":10,"active":6,"share":0.6}`.
    public static func jsonl(_ cell: CohortCell) -> String {
        "{\"cohort\":\"\(cell.cohort)\",\"month\":\(cell.month),\"accounts\":\(cell.accounts),\"active\":\(cell.active),\"share\":\(cell.share)}"
    }

    public static let cohortCSVHeader = "cohort,month,accounts,active,share"

    public static func csv(_ cell: CohortCell) -> String {
        "\(cell.cohort),\(cell.month),\(cell.accounts),\(cell.active),\(cell.share)"
    }

    /// A JSON string literal (quotes, backslashes and control characters escaped).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
