import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// The metrics page, the same for the operator's console and the developer console (docs/metrics.md,
/// "Pages"): a form (app, metric, date range, interval, and the filters: store, product, country,
/// environment) and the metric chosen as a chart drawn by the
/// server (`SVGChart`, as the dashboard draws its charts) with the same numbers as a table, read
/// through `DeveloperMetrics` like the API, and below them the cohort table (`CohortHeatMap`). A
/// console renders its own layout around the `metrics-page` partial with `values`; an app the actor
/// does not reach is `notFound` (404).
struct MetricsPage {
    /// What the form asked for, each field defaulted when absent.
    struct Form: Sendable {
        var app: String?
        var metric: MetricName = .mrr
        var from: MetricDay
        var to: MetricDay
        var interval: MetricInterval = .day
        /// The store, product or country and the environment (`MetricsFilter`); the values as
        /// given, so the form shows them chosen again.
        var filter = MetricsFilter()
        var store: String?
        var product: String?
        var country: String?
        /// The first malformed field, named.
        var error: String?
    }

    /// A choice of one of the form's `<select>`s.
    struct Option: Sendable {
        let value: String
        let label: String
        let selected: Bool
    }

    /// The chart and its table.
    struct Chart: Sendable {
        struct Row: Sendable {
            let label: String
            let value: String
            /// Churn by reason, or the payments left out of the money.
            let detail: String?
        }

        let svg: String
        let title: String
        let unit: String
        let id: String
        let rows: [Row]
        let valueHeader: String
        let periodHeader: String
        let hasDetail: Bool
        let detailHeader: String?
        let note: String?
    }

    /// The `metrics-page` partial's context.
    struct Values: Sendable {
        let action: String
        let from: String
        let to: String
        let reportingCurrency: String
        let apps: [Option]
        let metrics: [Option]
        let intervals: [Option]
        /// The actor reaches no app with a catalog yet.
        var noApps = false
        var stores: [Option] = []
        var products: [Option] = []
        var countries: [Option] = []
        var environments: [Option] = []
        var error: String?
        /// One cohort table, or none before the query is answered.
        var cohorts: [CohortHeatMap.Table] = []
        /// One chart, or none.
        var chart: [Chart] = []
        /// Where the console's downloads are (nil: this person has none).
        var exportAction: String?
    }

    var values: Values
    var status: HTTPResponse.Status

    /// The range shown when the form names none: the last 30 days, today included.
    static let defaultDays = 30

    static let labels: [MetricName: String] = [
        .mrr: "Monthly recurring revenue", .activeSubscriptions: "Active subscriptions", .activeTrials: "Active trials",
        .revenue: "Revenue", .refunds: "Refunds", .netRevenue: "Net revenue", .newSubscribers: "New subscribers",
        .trialStarts: "Trials started", .trialConversions: "Trials converted", .churned: "Churned subscriptions",
        .reactivations: "Reactivations",
    ]

    /// Reads the query: a field left out takes its default (the first app, MRR, the last 30 days, by
    /// day); a malformed one is named in `error`.
    static func form(_ request: Request, apps: [String], today: MetricDay) -> Form {
        let parameters = request.uri.queryParameters
        func text(_ name: Substring) -> String? { parameters[name].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        var form = Form(app: text("app") ?? apps.first, from: today.adding(days: 1 - defaultDays), to: today)
        var problems: [String] = []
        if let name = text("metric") {
            if let metric = MetricName(rawValue: name) { form.metric = metric } else { problems.append("metric: no metric is called “\(name)”") }
        }
        for (field, isFrom) in [("from", true), ("to", false)] {
            guard let value = text(Substring(field)) else { continue }
            guard let day = MetricDay(value) else { problems.append("\(field): a day is written YYYY-MM-DD"); continue }
            if isFrom { form.from = day } else { form.to = day }
        }
        if let name = text("interval") {
            if let interval = MetricInterval(rawValue: name) { form.interval = interval } else { problems.append("interval: day, week or month") }
        }
        (form.store, form.product, form.country) = (text("store"), text("product"), text("country"))
        do {
            form.filter = try MetricsFilter.parse(store: form.store, product: form.product, country: form.country,
                                                  environment: text("environment"))
            form.country = form.filter.scope.country == MetricScope.every ? form.country : form.filter.scope.country
        } catch {
            problems.append(error.description)
        }
        form.error = problems.isEmpty ? nil : problems.joined(separator: "; ")
        return form
    }

    /// The page for `actor`, who chooses among `apps`; the form is sent to `action`.
    static func answer(_ request: Request, apps: [String], action: String, actor: SoukActor, metrics: DeveloperMetrics,
                       today: MetricDay) async throws -> MetricsPage {
        let form = form(request, apps: apps, today: today)
        var values = Values(
            action: action, from: form.from.description, to: form.to.description, reportingCurrency: metrics.reportingCurrency,
            apps: apps.map { Option(value: $0, label: $0, selected: $0 == form.app) },
            metrics: MetricName.allCases.map { Option(value: $0.rawValue, label: labels[$0] ?? $0.rawValue, selected: $0 == form.metric) },
            intervals: MetricInterval.allCases.map { Option(value: $0.rawValue, label: "By \($0.rawValue)", selected: $0 == form.interval) })
        guard let app = form.app else {
            values.noApps = true
            return MetricsPage(values: values, status: .ok)
        }
        // Another's app is not found before anything else is said of the query.
        let choices = try await metrics.choices(actor: actor, app: app, sandbox: form.filter.sandbox)
        setFilters(form, products: choices.products, countries: choices.countries, in: &values)
        if let error = form.error {
            values.error = error
            return MetricsPage(values: values, status: .badRequest)
        }
        let query = MetricsQuery(app: app, metric: form.metric, from: form.from, to: form.to, interval: form.interval,
                                 sandbox: form.filter.sandbox, scope: form.filter.scope)
        let answer: MetricsAnswer
        do {
            answer = try await metrics.series(actor: actor, query)
        } catch DeveloperOperationError.invalid(let field, let problem) {
            values.error = "\(field): \(problem)"
            return MetricsPage(values: values, status: .unprocessableContent)
        } catch DeveloperOperationError.badParameter(let field, let problem) {
            values.error = "\(field): \(problem)"
            return MetricsPage(values: values, status: .badRequest)
        }
        // The cohort table needs no exchange rate: it is shown beside a chart and beside a missing rate.
        let last = form.to.month, first = last.adding(months: 1 - CohortHeatMap.months)
        let cells = try await metrics.cohorts(actor: actor, app: app, from: first, to: last)
        values.cohorts = [CohortHeatMap.table(app: app, cells: cells, through: last)]
        switch answer {
        case .points(let points, let currency):
            values.chart = [chart(query, points: points, currency: currency)]
            return MetricsPage(values: values, status: .ok)
        case .missingRates(let missing):
            values.error = "The metric cannot be converted into \(metrics.reportingCurrency): \(missing.description)."
            return MetricsPage(values: values, status: .conflict)
        }
    }

    /// The chart and its table, as the dashboard's charts are drawn.
    static func chart(_ query: MetricsQuery, points: [MetricPoint], currency: String?) -> Chart {
        let name = labels[query.metric] ?? query.metric.rawValue
        let each = query.interval.rawValue
        let unit = (currency.map { "\($0), " } ?? "") + (MetricSeries.isLevel(query.metric) ? "at the end of each \(each)" : "per \(each)")
        // Money in the currency's decimal form without its code (the unit and the table's header name it), so the axis's labels fit.
        let format: @Sendable (Int) -> String = { value in currency.map { PayoutStatement.decimal(Int64(value), currency: $0) } ?? String(value) }
        let label = { (point: MetricPoint) in query.interval == .month ? String(point.start.description.prefix(7)) : point.start.description }
        let chart = SVGChart(title: name, unit: unit,
                             points: points.map { SVGChart.Point(label: label($0), value: Int(clamping: $0.value)) }, format: format)
        let detailHeader: String? = query.metric == .churned ? "By reason" : (currency != nil ? "Left out" : nil)
        let rows = zip(chart.table, points).map { row, point in
            var detail: String?
            if let breakdown = point.breakdown {
                detail = ChurnReason.allCases.map { "\($0.rawValue) \(breakdown[$0.rawValue] ?? 0)" }.joined(separator: ", ")
            } else if let unknown = point.priceUnknown, unknown > 0 {
                detail = "\(unknown) payment(s) without a known price"
            }
            return Chart.Row(label: row.label, value: row.value, detail: detail)
        }
        return Chart(
            svg: chart.svg, title: "\(name) of \(query.app)\(filterTitle(query))", unit: unit, id: "table-" + SVGChart.slug(chart.title), rows: rows,
            valueHeader: currency.map { "Value (\($0))" } ?? "Value",
            periodHeader: ["day": "Day", "week": "Week from", "month": "Month"][each] ?? "Day",
            hasDetail: detailHeader != nil, detailHeader: detailHeader,
            note: points.contains(where: { ($0.priceUnknown ?? 0) > 0 })
                ? "Payments whose store said no price are counted in the subscriptions, but left out of the money." : nil)
    }
}
