import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// `/developer/metrics?app=&metric=&from=&to=&interval=`: a metric of one of the organisation's
/// apps (those of its in-app catalogs) as a chart and a table (`MetricsPage`, the operator console's
/// page too). Another organisation's app is 404, like every developer console page.
extension DeveloperConsoleController {
    func addMetricsRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("metrics", use: metricsPage)
        routes.members.get("exports", use: exportDownload)
    }

    /// `/developer/exports?kind=purchases|events&app=&from=&to=&format=csv|jsonl`: the raw export of
    /// one of the organisation's apps as a download (the API's, with the member as actor);
    /// `kind=metrics|cohorts`: its metrics or cohort table (`MetricsExportDownload`).
    @Sendable func exportDownload(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        if let kind = request.uri.queryParameters["kind"].flatMap({ MetricsExportKind(rawValue: String($0)) }) {
            return try await MetricsExportDownload.response(actor: session.actor, kind: kind, request: request, metrics: metrics)
        }
        return try await RawExportDownload.response(actor: session.actor, kind: request.uri.queryParameters["kind"].map(String.init),
                                                    request: request, exports: services.operations.rawExports)
    }

    /// The metrics page of the member's organisation.
    @Sendable func metricsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let apps = try await services.directory.catalogs(of: session.member.developerID).sorted()
        let page = try await MetricsPage.answer(request, apps: apps, action: "/developer/metrics", actor: session.actor, metrics: metrics,
                                                today: MetricDay(containing: services.now()))
        var values = page.values
        values.exportAction = "/developer/exports"
        return try await render(.developerMetrics, session: session, title: "Metrics", page: values, status: page.status)
    }
}
