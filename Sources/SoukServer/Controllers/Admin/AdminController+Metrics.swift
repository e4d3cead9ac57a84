import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// `/admin/metrics?app=&metric=&from=&to=&interval=`: a metric of any app with an in-app catalog, or
/// of the marketplace's own plans (`AppPricing.marketplaceApp`), for operators and support — the developer
/// console's page (`MetricsPage`) inside the operator's console.
extension AdminController {
    func addMetricsRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("metrics", use: metricsPage)
        routes.operators.get("exports", use: exportDownload)
    }

    /// `/admin/exports?kind=purchases|events&app=&from=&to=&format=csv|jsonl`: the raw export of any
    /// app as a download, for operators (buyers by account token, as for developers);
    /// `kind=metrics|cohorts`: its metrics or cohort table (`MetricsExportDownload`).
    @Sendable func exportDownload(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        if let kind = request.uri.queryParameters["kind"].flatMap({ MetricsExportKind(rawValue: String($0)) }) {
            let metrics = services.metrics
            return try await MetricsExportDownload.response(actor: Self.staffActor(session), kind: kind, request: request, metrics: metrics)
        }
        return try await RawExportDownload.response(actor: Self.staffActor(session), kind: request.uri.queryParameters["kind"].map(String.init),
                                                    request: request, exports: developerServices.operations.rawExports)
    }

    /// The metrics page of any app.
    @Sendable func metricsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let catalogs = try await services.commerceCatalogs.store.apps().sorted()
        let apps = catalogs.contains(AppPricing.marketplaceApp) ? catalogs : catalogs + [AppPricing.marketplaceApp]
        let metrics = services.metrics
        let page = try await MetricsPage.answer(request, apps: apps, action: "/admin/metrics", actor: Self.staffActor(session),
                                                metrics: metrics, today: MetricDay(containing: now()))
        var values = page.values
        if session.isOperator { values.exportAction = "/admin/exports" }
        return try await render(.adminMetrics, session: session, title: "Metrics", page: values, status: page.status)
    }
}
