import Foundation
import SoukCore
import SoukStore

/// What `GET /api/v1/developer/metrics` asks for.
package struct MetricsQuery: Sendable {
    package var app: String
    package var metric: MetricName
    package var from: MetricDay
    package var to: MetricDay
    package var interval: MetricInterval
    package var sandbox: Bool
    /// Which of the app's periods count: all of them, or one store's, product's or country's.
    package var scope: MetricScope

    /// The longest range one answer covers.
    package static let maxDays = 3_660

    package init(app: String, metric: MetricName, from: MetricDay, to: MetricDay, interval: MetricInterval, sandbox: Bool,
                 scope: MetricScope = .all) {
        self.scope = scope
        self.app = app
        self.metric = metric
        self.from = from
        self.to = to
        self.interval = interval
        self.sandbox = sandbox
    }
}

/// A metric's series in the reporting currency, or the rates it lacks.
package enum MetricsAnswer: Sendable, Equatable {
    case points([MetricPoint], currency: String?)
    case missingRates(MissingRates)
}

/// Reads an app's metrics from the daily rollup (never from the purchases) for an actor that
/// reaches the app's catalog with `metrics:read` (`DeveloperOwnership`; another organisation's app
/// is not found) or for the marketplace's staff, converted with the operator's exchange rates.
package struct DeveloperMetrics: Sendable {
    package let ownership: DeveloperOwnership
    package let rollups: MetricRollupStore
    package let rates: ExchangeRateStore
    package let reportingCurrency: String
    package let database: SoukDatabase

    package init(ownership: DeveloperOwnership, database: SoukDatabase, reportingCurrency: String) {
        self.ownership = ownership
        self.rollups = MetricRollupStore(database: database)
        self.rates = ExchangeRateStore(database: database)
        self.reportingCurrency = reportingCurrency
        self.database = database
    }

    /// The products and countries the app's rollup has numbers of (what a filter can choose), for
    /// an actor that reaches the app.
    package func choices(actor: SoukActor, app: String, sandbox: Bool) async throws -> (products: [String], countries: [String]) {
        try DeveloperOwnership.authorizeReading(actor, .metricsRead)
        try await ownership.reach(catalog: app, for: actor)
        return try await rollups.dimensions(app: app, sandbox: sandbox)
    }

    /// The products a filter may name: the catalog's, on sale or retired, and any the rollup has
    /// numbers of (a product id a period carries although the catalog never listed it).
    func knownProducts(app: String, sandbox: Bool) async throws -> Set<String> {
        var known = Set(try await rollups.dimensions(app: app, sandbox: sandbox).products)
        if let state = try await ownership.catalogs.state(app: app) {
            known.formUnion(state.catalog.products.map(\.id))
            known.formUnion(state.retired.map(\.id))
        }
        return known
    }

    package func series(actor: SoukActor, _ query: MetricsQuery) async throws -> MetricsAnswer {
        try DeveloperOwnership.authorizeReading(actor, .metricsRead)
        try await ownership.reach(catalog: query.app, for: actor)
        guard query.from <= query.to else { throw DeveloperOperationError.invalid(field: "from", "must not be after to") }
        guard query.to.ordinal - query.from.ordinal < MetricsQuery.maxDays else {
            throw DeveloperOperationError.invalid(field: "to", "at most \(MetricsQuery.maxDays) days from from")
        }
        let scope = query.scope
        if scope.product != MetricScope.every, try await !knownProducts(app: query.app, sandbox: query.sandbox).contains(scope.product) {
            throw DeveloperOperationError.badParameter(field: "product", "is no product of \(query.app)'s catalog, on sale or retired")
        }
        let rows = try await rollups.rows(app: query.app, sandbox: query.sandbox, store: scope.store, product: scope.product,
                                          country: scope.country, metrics: MetricSeries.sources(of: query.metric),
                                          from: query.from, to: query.to)
        let converter = try await rates.converter(reportingCurrency: reportingCurrency)
        switch MetricSeries.points(query.metric, rows: rows, from: query.from, to: query.to, interval: query.interval, converter: converter) {
        case .success(let points): return .points(points, currency: query.metric.isMoney ? reportingCurrency : nil)
        case .failure(let missing): return .missingRates(missing)
        }
    }
}
