import Foundation

/// Plain aligned columns for operator output.
struct Table {
    var header: [String]
    var rows: [[String]]

    init(_ header: [String], _ rows: [[String]]) {
        self.header = header
        self.rows = rows
    }

    func render() -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func date(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon))
    }

    /// `-` for no date.
    static func date(_ date: Date?) -> String {
        date.map { Self.date($0) } ?? "-"
    }
}
