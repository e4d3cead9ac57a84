import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// `GET /api/v1/developer/metrics?metric=&from=&to=&interval=day|week|month&app=[&environment=sandbox]`
/// `[&store=|&product=|&country=]` (docs/metrics.md, "The API" and "Filters"): an app's metric from the daily rollup, for a developer API key with
/// `metrics:read` whose organisation owns the app's catalog. A day whose money lacks an exchange
/// rate is a `409` problem naming each currency and day, never a guess.
struct DeveloperMetricsController {
    let metrics: DeveloperMetrics

    func addRoutes(to group: RouterGroup<DeveloperRequestContext>) {
        group.get("", use: series)
    }

    /// `GET metrics`: the series, or a problem naming what is wrong with the query.
    @Sendable func series(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        let query = try Self.query(request)
        switch try await metrics.series(actor: actor, query) {
        case .points(let points, let currency):
            return DeveloperAPIController.json(DeveloperMetricsDocument(
                app: query.app, metric: query.metric.rawValue, interval: query.interval.rawValue,
                environment: query.sandbox ? "sandbox" : "production", from: query.from.description, to: query.to.description,
                currency: currency, store: Self.named(query.scope.store), product: Self.named(query.scope.product),
                country: Self.named(query.scope.country), points: points.map(DeveloperMetricsDocument.Point.init)))
        case .missingRates(let missing):
            throw Problem(.conflict, "The metric cannot be converted: \(missing.description).", type: "urn:souk:problem:missing-exchange-rate")
        }
    }

    static func query(_ request: Request) throws -> MetricsQuery {
        let parameters = request.uri.queryParameters
        func text(_ name: Substring) -> String? { parameters[name].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        guard let app = text("app") else { throw DeveloperOperationError.badParameter(field: "app", "is required (the app's bundle id)") }
        guard let name = text("metric") else {
            throw DeveloperOperationError.badParameter(field: "metric", "is required: one of \(Self.metricNames)")
        }
        guard let metric = MetricName(rawValue: name) else {
            throw DeveloperOperationError.badParameter(field: "metric", "must be one of \(Self.metricNames)")
        }
        guard let fromText = text("from"), let from = MetricDay(fromText) else {
            throw DeveloperOperationError.badParameter(field: "from", "is required: a day YYYY-MM-DD")
        }
        guard let toText = text("to"), let to = MetricDay(toText) else {
            throw DeveloperOperationError.badParameter(field: "to", "is required: a day YYYY-MM-DD")
        }
        guard let interval = MetricInterval(rawValue: text("interval") ?? "day") else {
            throw DeveloperOperationError.badParameter(field: "interval", "must be day, week or month")
        }
        let filter = try MetricsFilter.parse(store: text("store"), product: text("product"), country: text("country"),
                                             environment: text("environment"))
        return MetricsQuery(app: app, metric: metric, from: from, to: to, interval: interval, sandbox: filter.sandbox, scope: filter.scope)
    }

    /// A filter's value in the answer; nil for every store, product or country.
    static func named(_ value: String) -> String? { value == MetricScope.every ? nil : value }

    static let metricNames = MetricName.allCases.map(\.rawValue).joined(separator: ", ")
}
