import Foundation
import SoukCore

/// The cohort table of the metrics pages (docs/metrics.md, "Pages"): rows are cohorts (the month
/// of their accounts' first paid period), columns the months since, each cell the share of the
/// cohort's accounts still active, as text and as a colour (`heat-0` … `heat-9`, the stylesheet's
/// ten steps of tenths: no style attribute, which the pages' Content-Security-Policy forbids).
enum CohortHeatMap {
    /// How many cohorts the page shows: those of the twelve months up to the month of `to`.
    static let months = 12

    /// The `metrics-cohorts` partial's context.
    struct Table: Sendable {
        struct Column: Sendable { let label: String }

        struct Row: Sendable {
            let cohort: String
            let accounts: String
            let cells: [Cell]
        }

        struct Cell: Sendable {
            /// The colour's class.
            let heat: String
            /// The share as a percentage; empty for a month not reached yet.
            let text: String
            /// What a screen reader adds: the counts, or "not yet".
            let hidden: String
        }

        let caption: String
        let columns: [Column]
        let rows: [Row]
        let empty: Bool
    }

    /// The table of `app`'s cohorts up to the month `last`.
    static func table(app: String, cells: [CohortCell], through last: StatementMonth) -> Table {
        let columns = (cells.map(\.month).max() ?? -1) + 1
        let byCohort = Dictionary(grouping: cells, by: \.cohort)
        let rows = byCohort.keys.sorted().map { cohort in
            let row = byCohort[cohort] ?? []
            let byMonth = Dictionary(row.map { ($0.month, $0) }, uniquingKeysWith: { first, _ in first })
            return Table.Row(cohort: cohort.description, accounts: String(row.first?.accounts ?? 0), cells: (0..<columns).map { k in
                guard let cell = byMonth[k] else { return Table.Cell(heat: "heat-none", text: "", hidden: "not yet") }
                return Table.Cell(heat: heatClass(cell.share), text: percent(cell.share), hidden: "(\(cell.active) of \(cell.accounts))")
            })
        }
        return Table(
            caption: "Subscription retention by cohort of \(app), to \(last): the share of each cohort's accounts with an active "
                + "subscription at the end of each month since their first paid month",
            columns: (0..<columns).map { Table.Column(label: "Month \($0)") }, rows: rows, empty: rows.isEmpty)
    }

    /// `heat-0` for a share under 10 % … `heat-9` for 90 % and more.
    static func heatClass(_ share: Double) -> String {
        "heat-\(min(9, max(0, Int((share * 10).rounded(.down)))))"
    }

    /// A share as a percentage with at most one decimal: `0.6` → `60%`, `0.3333` → `33.3%`.
    static func percent(_ share: Double) -> String {
        let tenths = Int((share * 1000).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }
}
