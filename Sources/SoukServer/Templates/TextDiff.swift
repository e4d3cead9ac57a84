/// A line diff of two texts (longest common subsequence), for the console's catalog review: the
/// catalog file before and after, with `context` unchanged lines around each change and the rest
/// folded into "…". Texts over `maxLines` lines are not compared (nil).
enum TextDiff {
    enum Kind: Equatable {
        case same, added, removed, folded
    }

    struct Line: Equatable {
        var kind: Kind
        var text: String
    }

    static let maxLines = 4_000

    static func lines(from old: String, to new: String, context: Int = 2) -> [Line]? {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard a.count <= maxLines, b.count <= maxLines else { return nil }
        // lengths[i][j]: the longest common subsequence of a[i...] and b[j...].
        var lengths = [[Int32]](repeating: [Int32](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var all: [Line] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                all.append(Line(kind: .same, text: a[i]))
                i += 1
                j += 1
            } else if j < b.count, i == a.count || lengths[i][j + 1] > lengths[i + 1][j] {  // a tie: removed lines first
                all.append(Line(kind: .added, text: b[j]))
                j += 1
            } else {
                all.append(Line(kind: .removed, text: a[i]))
                i += 1
            }
        }
        // Keep the changes and `context` lines around each; fold the other unchanged runs.
        let changed = all.indices.filter { all[$0].kind != .same }
        var keep = Set<Int>()
        for index in changed {
            for near in max(0, index - context)...min(all.count - 1, index + context) { keep.insert(near) }
        }
        var shown: [Line] = []
        for index in all.indices {
            if keep.contains(index) {
                shown.append(all[index])
            } else if shown.last?.kind != .folded {
                shown.append(Line(kind: .folded, text: "…"))
            }
        }
        return shown
    }
}

/// A diff line as the review pages show it (`{{text}}`, marked `{{#added}}` or `{{#removed}}`).
struct DiffLineValues: Sendable {
    let text: String
    let added: Bool
    let removed: Bool

    init(_ line: TextDiff.Line) {
        text = line.text
        added = line.kind == .added
        removed = line.kind == .removed
    }

    /// A line of `souk catalog apply`'s change summary: `+` added, `-` retired or removed, `~` changed.
    init(summary line: String) {
        text = line
        added = line.hasPrefix("+")
        removed = line.hasPrefix("-")
    }
}
