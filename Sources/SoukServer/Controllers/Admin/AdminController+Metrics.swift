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
    }

    /// The metrics page of any app.
    @Sendable func metricsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let catalogs = try await runtime.commerceCatalogs.store.apps().sorted()
        let apps = catalogs.contains(AppPricing.marketplaceApp) ? catalogs : catalogs + [AppPricing.marketplaceApp]
        let metrics = DeveloperMetrics(ownership: DeveloperOperations(runtime: runtime).ownership, database: runtime.database,
                                       reportingCurrency: runtime.config.reportingCurrency)
        let page = try await MetricsPage.answer(request, apps: apps, action: "/admin/metrics", actor: Self.staffActor(session),
                                                metrics: metrics, today: MetricDay(containing: now()))
        return try await render(.adminMetrics, session: session, title: "Metrics", page.values, status: page.status)
    }
}
