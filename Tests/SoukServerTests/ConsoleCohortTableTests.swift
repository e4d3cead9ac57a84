import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The metrics pages' cohort table and the consoles' downloads of metrics and cohorts (docs/metrics.md,
/// "Pages"), on both databases: the rollup's cells as an accessible heat-mapped table on both pages,
/// the downloads' lines those of `souk export metrics|cohorts`, within the raw exports' reach.
@Suite struct ConsoleCohortTableTests {
    typealias T = DeveloperConsoleTests
    typealias Page = ConsoleMetricsPageTests

    @Test(arguments: TestBackend.available)
    func bothMetricsPagesShowTheCohortTableAsAHeatMapBelowTheChart(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Page.subscribe(runtime, transaction: "9400", daysAgo: 2, price: 9990, currency: "USD")
            let cohort = MetricDay(containing: Date()).adding(days: -2).month
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            for (uri, session) in [("/developer/metrics", mia), ("/admin/metrics?app=\(T.acmeCatalog)", olive),
                                   ("/admin/metrics?app=\(T.acmeCatalog)&metric=churned", sam)] {
                let page = try await Page.page(client, uri, session: session)
                #expect(page.status == .ok, "\(uri): \(page.html)")
                #expect(page.html.contains(#"<table id="table-cohorts" class="cohorts">"#), "\(uri)")
                #expect(page.html.contains("<caption>Subscription retention by cohort of \(T.acmeCatalog), to "))
                #expect(page.html.contains(#"<th scope="col">Cohort</th><th scope="col">Accounts</th><th scope="col">Month 0</th>"#))
                // One account, active at the end of its first month (or today): 100 %, the darkest step, as text too.
                #expect(page.html.contains(#"<tr><th scope="row">\#(cohort)</th><td>1</td><td class="heat-9">100%<span class="visually-hidden"> (1 of 1)</span></td>"#),
                        "\(page.html)")
                // Below the chart, coloured by classes only: the Content-Security-Policy allows no style attribute.
                let chart = try #require(page.html.range(of: "chart-box")), table = try #require(page.html.range(of: "table-cohorts"))
                #expect(chart.lowerBound < table.lowerBound)
                #expect(!page.html.contains("style=") && !page.html.contains("<script>"))
            }
            // An app without a paying account: the table says so.
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            let rival = try await Page.page(client, "/developer/metrics", session: riva)
            #expect(rival.status == .ok && rival.html.contains("No account of this app has paid") && !rival.html.contains("table-cohorts"))
            // A missing exchange rate refuses the chart, not the cohort table (counts need no rate).
            try await Page.subscribe(runtime, transaction: "9401", daysAgo: 1, price: 4990, currency: "EUR")
            let refused = try await Page.page(client, "/developer/metrics?app=\(T.acmeCatalog)", session: mia)
            #expect(refused.status == .conflict && refused.html.contains("table-cohorts"))
        }
    }

    @Test(arguments: TestBackend.available)
    func bothConsolesDownloadTheMetricsAndCohortsWithinTheirReach(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            try await Page.subscribe(runtime, transaction: "9500", daysAgo: 1, price: 9990, currency: "USD")
            let today = MetricDay(containing: Date()), from = today.adding(days: -3)
            let query = "app=\(T.acmeCatalog)&from=\(from)&to=\(today)"
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let exports = MetricsExports(ownership: DeveloperOperations(runtime: runtime).ownership, database: runtime.database)
            let metricLines = try await exports.metrics(actor: .currentCLIUser, app: T.acmeCatalog, from: from, to: today, format: .jsonl,
                                                        currency: "USD")
            let cohortLines = try await exports.cohorts(actor: .currentCLIUser, app: T.acmeCatalog, from: from.month, to: today.month,
                                                        format: .csv)
            #expect(metricLines.count == 4 * MetricName.allCases.count)
            #expect(metricLines.contains(#"{"date":"\#(today.adding(days: -1))","app":"\#(T.acmeCatalog)","metric":"revenue","value":999,"currency":"USD"}"#))

            let page = try await Page.page(client, "/developer/metrics", session: mia)
            #expect(page.html.contains(#"<option value="metrics">Metrics</option><option value="cohorts">Cohorts</option>"#))
            for (path, session) in [("/developer/exports", mia), ("/admin/exports", olive)] {
                let jsonl = try await T.get(client, "\(path)?kind=metrics&\(query)&format=jsonl", session: session)
                #expect(jsonl.status == .ok && jsonl.headers[.contentType] == "application/jsonl; charset=utf-8", "\(path)")
                #expect(jsonl.headers[.contentDisposition] == "attachment; filename=\"\(T.acmeCatalog)-metrics-\(from)-\(today).jsonl\"")
                #expect(String(buffer: jsonl.body) == metricLines.map { $0 + "\n" }.joined())
                let csv = try await T.get(client, "\(path)?kind=metrics&\(query)&format=csv", session: session)
                let rows = String(buffer: csv.body).split(separator: "\n")
                #expect(csv.status == .ok && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
                #expect(rows.first.map(String.init) == MetricsExportLines.csvHeader && rows.count == 1 + metricLines.count)
                let cohorts = try await T.get(client, "\(path)?kind=cohorts&\(query)&format=csv", session: session)
                #expect(cohorts.status == .ok && String(buffer: cohorts.body) == cohortLines.map { $0 + "\n" }.joined())
                #expect(cohortLines.first == MetricsExportLines.cohortCSVHeader && cohortLines.count >= 2)
                #expect(cohorts.headers[.contentDisposition] == "attachment; filename=\"\(T.acmeCatalog)-cohorts-\(from.month)-\(today.month).csv\"")
            }
            // Another organisation's member, support staff and bad fields are refused before any line.
            #expect(try await T.get(client, "/developer/exports?kind=metrics&\(query)&format=csv", session: riva).status == .notFound)
            #expect(try await T.get(client, "/developer/exports?kind=cohorts&\(query)&format=csv", session: riva).status == .notFound)
            #expect(try await T.get(client, "/admin/exports?kind=metrics&\(query)&format=csv", session: sam).status == .forbidden)
            #expect(try await T.get(client, "/developer/exports?kind=metrics&\(query)&format=xml", session: mia).status == .badRequest)
            #expect(try await T.get(client, "/developer/exports?kind=cohorts&app=\(T.acmeCatalog)&from=\(today)&to=\(from)&format=csv",
                                    session: mia).status == .badRequest)
            // Money in a currency without an exchange rate: the API's problem, naming it; cohorts need no rate.
            try await Page.subscribe(runtime, transaction: "9501", daysAgo: 1, price: 4990, currency: "EUR")
            let missing = try await T.get(client, "/developer/exports?kind=metrics&\(query)&format=jsonl", session: mia)
            let problem = String(buffer: missing.body)
            #expect(missing.status == .conflict && problem.contains("urn:souk:problem:missing-exchange-rate") && problem.contains("EUR"), "\(problem)")
            #expect(try await T.get(client, "/developer/exports?kind=cohorts&\(query)&format=jsonl", session: mia).status == .ok)
        }
    }
}
