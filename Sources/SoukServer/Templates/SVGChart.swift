import Foundation

/// A bar chart drawn by the server as SVG (the console's dashboard): no script,
/// no external file, readable without colour — every bar is labelled with its value where it fits,
/// the axis says the scale, and the chart has a `<title>` and a `<desc>` that say what it shows
/// and its highest and latest values; `table` gives the same numbers as an HTML table beside it.
struct SVGChart: Sendable {
    struct Point: Sendable, Equatable {
        var label: String
        var value: Int
    }

    var title: String
    var unit: String
    var points: [Point]
    /// How to print a value (counts by default; money passes its own formatter).
    var format: @Sendable (Int) -> String = { String($0) }

    static let width = 640
    static let height = 220
    static let top = 28
    static let bottom = 34
    static let left = 48
    static let right = 12

    /// The `<svg>` element (escaped text only; safe to embed unescaped in a page).
    var svg: String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let maximum = max(points.map(\.value).max() ?? 0, 1)
        let scale = Self.niceCeiling(maximum)
        let slot = points.isEmpty ? Double(plotWidth) : Double(plotWidth) / Double(points.count)
        let barWidth = max(slot * 0.7, 1)
        let id = "chart-" + Self.slug(title)
        var parts: [String] = []
        parts.append(##"<svg class="chart" role="img" aria-labelledby="\##(id)-title \##(id)-desc" viewBox="0 0 \##(Self.width) \##(Self.height)" width="\##(Self.width)" height="\##(Self.height)" xmlns="http://www.w3.org/2000/svg">"##)
        parts.append(##"<title id="\##(id)-title">\##(Self.escape(title))</title>"##)
        parts.append(##"<desc id="\##(id)-desc">\##(Self.escape(description))</desc>"##)
        // Axis and gridlines at 0, ½ and the top of the scale, labelled.
        // (No half line when the scale is 1: it would be labelled 0 as well.)
        for fraction in scale >= 2 ? [0.0, 0.5, 1.0] : [0.0, 1.0] {
            let y = Double(Self.top) + Double(plotHeight) * (1 - fraction)
            parts.append(##"<line x1="\##(Self.left)" y1="\##(Self.round(y))" x2="\##(Self.width - Self.right)" y2="\##(Self.round(y))" stroke="#8e8e93" stroke-width="1"\##(fraction == 0 ? "" : " stroke-dasharray=\"3 3\"")/>"##)
            parts.append(##"<text x="\##(Self.left - 6)" y="\##(Self.round(y + 4))" font-size="11" text-anchor="end" fill="#1d1d1f">\##(Self.escape(format(Int(Double(scale) * fraction))))</text>"##)
        }
        for (index, point) in points.enumerated() {
            let x = Double(Self.left) + slot * Double(index) + (slot - barWidth) / 2
            let barHeight = Double(plotHeight) * Double(max(point.value, 0)) / Double(scale)  // a net refund day: no bar, its value in the table
            let y = Double(Self.top) + Double(plotHeight) - barHeight
            parts.append(##"<rect x="\##(Self.round(x))" y="\##(Self.round(y))" width="\##(Self.round(barWidth))" height="\##(Self.round(barHeight))" fill="#0058b0"><title>\##(Self.escape(point.label)): \##(Self.escape(format(point.value)))</title></rect>"##)
            // The first, the last and every seventh day are labelled under the axis (not one too close to the last).
            let last = points.count - 1
            if index == 0 || index == last || (index % 7 == 0 && last - index >= 4) {
                parts.append(##"<text x="\##(Self.round(x + barWidth / 2))" y="\##(Self.height - Self.bottom + 16)" font-size="11" text-anchor="middle" fill="#1d1d1f">\##(Self.escape(point.label))</text>"##)
            }
        }
        parts.append(##"<text x="\##(Self.left)" y="16" font-size="12" font-weight="bold" fill="#1d1d1f">\##(Self.escape(title)) (\##(Self.escape(unit)))</text>"##)
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// What the chart shows, in words (its `<desc>`).
    var description: String {
        guard let peak = points.max(by: { $0.value < $1.value }), let last = points.last, let first = points.first else {
            return "\(title): no data."
        }
        let total = points.reduce(0) { $0 + $1.value }
        return "\(title), \(first.label) to \(last.label): total \(format(total)) \(unit); highest \(format(peak.value)) on \(peak.label); "
            + "latest \(format(last.value)) on \(last.label)."
    }

    /// A line of the table beside the chart.
    struct Row: Sendable {
        let label: String
        let value: String
    }

    /// The same numbers for the table beside the chart.
    var table: [Row] {
        points.map { Row(label: $0.label, value: format($0.value)) }
    }

    /// 1, 2 or 5 times a power of ten, at least `value`: the axis's top.
    static func niceCeiling(_ value: Int) -> Int {
        guard value > 1 else { return 1 }
        var power = 1
        while power * 10 <= value { power *= 10 }
        for step in [1, 2, 5, 10] where step * power >= value { return step * power }
        return value
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func slug(_ text: String) -> String {
        String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    static func round(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
