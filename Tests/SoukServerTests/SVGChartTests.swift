@testable import SoukApp
@testable import SoukServer
import Testing

@Suite struct SVGChartTests {
    @Test func theAxisTopIsANiceNumberAtLeastTheHighestValue() {
        #expect([0, 1, 2, 7, 10, 11, 99, 101, 2_001, 49_999].map(SVGChart.niceCeiling) == [1, 1, 2, 10, 10, 20, 100, 200, 5_000, 50_000])
    }

    @Test func aChartSaysInWordsWhatItShowsAndEscapesItsText() {
        let chart = SVGChart(title: "Installs <per day>", unit: "installs",
                             points: [.init(label: "11-01", value: 3), .init(label: "11-02", value: 12), .init(label: "11-03", value: 5)])
        let svg = chart.svg
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"))
        #expect(svg.contains("role=\"img\"") && svg.contains("<title id="))
        #expect(!svg.contains("<per day>") && svg.contains("&lt;per day&gt;"))
        #expect(svg.components(separatedBy: "<rect ").count - 1 == 3)
        #expect(chart.description == "Installs <per day>, 11-01 to 11-03: total 20 installs; highest 12 on 11-02; latest 5 on 11-03.")
        #expect(chart.table.map { [$0.label, $0.value] } == [["11-01", "3"], ["11-02", "12"], ["11-03", "5"]])
        #expect(SVGChart(title: "Empty", unit: "x", points: []).description == "Empty: no data.")
    }

    @Test func thirtyDaysAreLabelledWeeklyWithoutCrowdingTheLastAndAFlatChartHasNoDoubleZero() {
        let points = (0..<30).map { SVGChart.Point(label: String(format: "d%02d", $0), value: $0 == 3 ? 1 : 0) }
        let svg = SVGChart(title: "Flat", unit: "per day", points: points).svg
        let labelled = points.map(\.label).filter { svg.contains(">\($0)</text>") }
        #expect(labelled == ["d00", "d07", "d14", "d21", "d29"])
        // Scale 1: gridlines at 0 and 1 only, so no second "0" on the axis.
        #expect(svg.components(separatedBy: ">0</text>").count - 1 == 1)
    }
}
