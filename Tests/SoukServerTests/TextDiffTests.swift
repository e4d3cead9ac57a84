@testable import SoukApp
@testable import SoukServer
import Testing

@Suite struct TextDiffTests {
    @Test func changedLinesAreShownWithContextAndTheRestIsFolded() throws {
        let old = (1...12).map { "line \($0)" }.joined(separator: "\n")
        let new = old.replacingOccurrences(of: "line 6", with: "line six").replacingOccurrences(of: "line 12", with: "line 12\nline 13")
        let lines = try #require(TextDiff.lines(from: old, to: new, context: 1))
        #expect(lines == [
            .init(kind: .folded, text: "…"), .init(kind: .same, text: "line 5"), .init(kind: .removed, text: "line 6"),
            .init(kind: .added, text: "line six"), .init(kind: .same, text: "line 7"), .init(kind: .folded, text: "…"),
            .init(kind: .same, text: "line 12"), .init(kind: .added, text: "line 13"),
        ])
        #expect(TextDiff.lines(from: old, to: old)?.allSatisfy { $0.kind == .folded } == true)
    }
}
