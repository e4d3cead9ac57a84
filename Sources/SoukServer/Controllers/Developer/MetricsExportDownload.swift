import Foundation
import Hummingbird
import NIOCore
import SoukApp
import SoukCore

/// What the consoles' download form offers beside the raw exports: an app's daily metrics and its
/// cohort table (docs/metrics.md, "Pages").
enum MetricsExportKind: String, Sendable {
    case metrics, cohorts
}

/// The metrics exports as a download (`souk export metrics|cohorts`'s lines), for both consoles:
/// `kind=metrics|cohorts&app=&from=YYYY-MM-DD&to=YYYY-MM-DD&format=csv|jsonl` — metrics of every
/// day of the range in the reporting currency, cohorts of the months of `from` through `to`. Who
/// may is the reach of `metrics:read` for a member (their organisation's apps; another's is `404`)
/// and every app for an operator; the reach, the query and every day's exchange rates are checked
/// before the answer's head (a missing rate is the API's `409` problem), then the lines are streamed
/// as the rollup is read.
enum MetricsExportDownload {
    static func response(actor: SoukActor, kind: MetricsExportKind, request: Request, metrics: DeveloperMetrics) async throws -> Response {
        // Who may export is known before the query is read, as for the raw exports.
        try DeveloperOwnership.authorize(actor, .metricsRead)
        let query = request.uri.queryParameters
        guard let app = query["app"].map(String.init), !app.isEmpty, app.count <= 255 else {
            throw DeveloperOperationError.badParameter(field: "app", "is required: the app's bundle id")
        }
        let from = try day(query["from"], field: "from"), to = try day(query["to"], field: "to")
        guard from <= to else { throw DeveloperOperationError.badParameter(field: "to", "must not be before from (\(from))") }
        guard let format = query["format"].flatMap({ MetricsExportFormat(rawValue: String($0)) }), let media = ExportFormat(rawValue: format.rawValue) else {
            throw DeveloperOperationError.badParameter(field: "format", "must be csv or jsonl")
        }
        let body: ResponseBody, name: String
        switch kind {
        case .metrics:
            let stream: MetricsExportStream
            do {
                stream = try await metrics.exports.openMetrics(actor: actor, app: app, from: from, to: to, format: format,
                                                               currency: metrics.reportingCurrency)
            } catch MetricsExportError.missingRates(let missing) {
                throw Problem(.conflict, "The metrics cannot be converted: \(missing.description).", type: "urn:souk:problem:missing-exchange-rate")
            }
            body = ResponseBody { writer in
                try await stream.write { text in try await writer.write(ByteBuffer(string: text)) }
                try await writer.finish(nil)
            }
            name = "\(from)-\(to)"
        case .cohorts:
            let lines = try await metrics.exports.cohorts(actor: actor, app: app, from: from.month, to: to.month, format: format)
            body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: lines.map { $0 + "\n" }.joined()))
                try await writer.finish(nil)
            }
            name = "\(from.month)-\(to.month)"
        }
        let safe = String(app.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") ? $0 : "_" })
        var headers: HTTPFields = [:]
        headers[.contentType] = media.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(safe)-\(kind.rawValue)-\(name).\(format.rawValue)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: body)
    }

    static func day(_ text: Substring?, field: String) throws -> MetricDay {
        guard let text, let day = MetricDay(String(text)) else {
            throw DeveloperOperationError.badParameter(field: field, "must be a UTC day YYYY-MM-DD, such as 2026-11-01")
        }
        return day
    }
}
