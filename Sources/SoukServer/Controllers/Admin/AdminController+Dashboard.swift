import Foundation
import Hummingbird
import SoukCore
import SoukStore
import Synchronization

/// The dashboard's charts: the last 30 days of licenses issued (installs and restores), license
/// requests and failures, active subscriptions and the marketplace's own revenue per day and per
/// app — SVG drawn by the server (`SVGChart`), each with a text alternative and a table of the
/// same numbers. Every chart is drawn, empty or not: with no sale in the 30 days the revenue chart
/// is drawn at zero and says so, as the license charts are. The figures are read at most once a minute per process (`DashboardCache`), so
/// the page stays fast however many rows the tables hold.
extension AdminController {
    static var dashboardDays: Int { 30 }

    /// The counts now and the charts, computed at most once a minute per process: counting a
    /// million purchases takes longer than a page may.
    func dashboardFigures() async throws -> (counts: (figures: PeopleDirectory.Counts, at: Date), charts: [DashboardChart]) {
        let snapshot = try await dashboardSnapshot()
        return ((snapshot.counts, snapshot.at), snapshot.charts)
    }

    private func dashboardSnapshot() async throws -> DashboardSnapshot {
        if let cached = dashboardCache.current(at: now()) { return cached }
        let end = now()
        let counts = try await services.directory.counts(at: end)
        let days = Self.dashboardDays
        func series(_ name: String) async throws -> [SVGChart.Point] {
            try await services.dailyCounts.series(name, days: days, endingAt: end).map { SVGChart.Point(label: String($0.day.dropFirst(5)), value: $0.count) }
        }
        let figures = try await services.dashboardFigures(days: days, endingAt: end)
        let labels = figures.days.map { String($0.dropFirst(5)) }  // "11-27"
        var charts: [SVGChart] = [
            SVGChart(title: "Licenses issued", unit: "per day", points: try await series("license.issued")),
            SVGChart(title: "License requests", unit: "per day", points: try await series("license.requests")),
            SVGChart(title: "License failures", unit: "per day", points: try await series("license.failures")),
            SVGChart(title: "Active subscriptions", unit: "at the end of each day",
                     points: zip(labels, figures.activeSubscriptions).map { SVGChart.Point(label: $0, value: $1) }),
        ]
        var perItem: [DashboardChart.ItemRevenue] = []
        let names = try await services.catalog.appNames(Set(figures.revenue.flatMap(\.perItem.keys).compactMap(Self.appleItemId(ofItem:))))
        for revenue in figures.revenue {
            let format: @Sendable (Int) -> String = { Price(currency: revenue.currency, amount: $0).formatted }
            charts.append(SVGChart(title: "Revenue in \(revenue.currency)", unit: "per day",
                                   points: zip(labels, revenue.perDay).map { SVGChart.Point(label: $0, value: $1) }, format: format))
            for (item, amount) in revenue.perItem.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
                perItem.append(.init(item: Self.itemName(item, names: names), amount: format(amount)))
            }
        }
        if figures.revenue.isEmpty {
            charts.append(SVGChart(title: "Revenue", unit: "per day", points: labels.map { SVGChart.Point(label: $0, value: 0) }))
        }
        var values = charts.map { DashboardChart(svg: $0.svg, title: $0.title, id: "table-" + SVGChart.slug($0.title), rows: $0.table) }
        // Revenue per item is listed under the last revenue chart (all currencies, highest first).
        if !perItem.isEmpty {
            values[values.count - 1].perItem = perItem
            values[values.count - 1].hasPerItem = true
        }
        if figures.revenue.isEmpty { values[values.count - 1].note = "No sales in these 30 days: nothing was paid or refunded." }
        let snapshot = DashboardSnapshot(at: end, counts: counts, charts: values)
        dashboardCache.store(snapshot)
        return snapshot
    }

    /// `app:<id>` → its AppleItemID; a plan → nil.
    static func appleItemId(ofItem item: String) -> UInt64? {
        item.hasPrefix("app:") ? AppleID.parse(String(item.dropFirst(4))) : nil
    }

    /// `app:<id>` → the app's name; `plan:<product>` → "Plan <product>".
    static func itemName(_ item: String, names: [UInt64: String]) -> String {
        if let id = appleItemId(ofItem: item) { return names[id] ?? "App \(id)" }
        return "Plan " + item.dropFirst(5)
    }
}

/// One chart of the dashboard, ready for the page.
struct DashboardChart: Sendable {
    var svg: String
    var title: String
    var id: String
    /// Revenue of one app or plan over the 30 days.
    struct ItemRevenue: Sendable {
        let item: String
        let amount: String
    }

    var rows: [SVGChart.Row]
    /// Under the last revenue chart: every app's and plan's revenue, highest first.
    var perItem: [ItemRevenue] = []
    var hasPerItem = false
    /// Said under the chart (an empty revenue chart says why it is empty).
    var note: String?
}

/// What the dashboard shows, as of `at`.
struct DashboardSnapshot: Sendable {
    var at: Date
    var counts: PeopleDirectory.Counts
    var charts: [DashboardChart]
}

/// The dashboard's figures, kept for a minute.
final class DashboardCache: Sendable {
    private let entry = Mutex<DashboardSnapshot?>(nil)
    static var lifetime: TimeInterval { 60 }

    func current(at now: Date) -> DashboardSnapshot? {
        entry.withLock { entry in
            guard let entry, now.timeIntervalSince(entry.at) < Self.lifetime, now >= entry.at else { return nil }
            return entry
        }
    }

    func store(_ snapshot: DashboardSnapshot) {
        entry.withLock { $0 = snapshot }
    }
}
