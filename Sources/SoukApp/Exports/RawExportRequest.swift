import Foundation
import SoukCore

/// A raw export asked for (docs/metrics.md, "Exports"): what, of which app (its bundle id), over
/// which UTC days (`from` and `to` both included), in which format.
package struct RawExportRequest: Sendable, Equatable {
    package var kind: RawExportKind
    package var app: String
    package var from: MetricDay
    package var to: MetricDay
    package var format: ExportFormat

    package init(kind: RawExportKind, app: String, from: MetricDay, to: MetricDay, format: ExportFormat) {
        self.kind = kind
        self.app = app
        self.from = from
        self.to = to
        self.format = format
    }

    /// Reads the text forms (the command's options, the API's query), naming the field at fault;
    /// nothing is read from the database before the request is whole.
    package static func parse(kind: RawExportKind, app: String?, from: String?, to: String?, format: String?) throws -> RawExportRequest {
        guard let app, !app.isEmpty, app.count <= 255 else { throw DeveloperOperationError.badParameter(field: "app", "is required: the app's bundle id") }
        let first = try day(from, field: "from"), last = try day(to, field: "to")
        guard first <= last else { throw DeveloperOperationError.badParameter(field: "to", "must not be before from (\(first))") }
        guard let format, let parsed = ExportFormat(rawValue: format) else {
            throw DeveloperOperationError.badParameter(field: "format", "must be csv or jsonl")
        }
        return RawExportRequest(kind: kind, app: app, from: first, to: last, format: parsed)
    }

    static func day(_ text: String?, field: String) throws -> MetricDay {
        guard let text, let day = MetricDay(text) else {
            throw DeveloperOperationError.badParameter(field: field, "must be a UTC day YYYY-MM-DD, such as 2026-11-01")
        }
        return day
    }

    /// The file name a download suggests: `com.example.reader-purchases-2026-11-01-2026-11-30.csv`.
    package var fileName: String {
        let safe = String(app.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") ? $0 : "_" })
        return "\(safe)-\(kind.rawValue)-\(from)-\(to).\(format.rawValue)"
    }
}
