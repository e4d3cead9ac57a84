import Foundation
import SQLKit
import Synchronization

/// Keeps a change log (`catalog_changes`, `commerce_changes`: one row per revision, read by the
/// in-memory indexes of every process) short: at most every ten minutes, deletes the rows more
/// than `length` revisions behind the latest. A process that falls further behind than that sees
/// a gap and reloads everything, so pruning never loses a change.
final class ChangeLogPruner: Sendable {
    let table: String
    let length: Int64
    private let lastPrune = Mutex<ContinuousClock.Instant?>(nil)

    /// `table` is a fixed identifier of Souk's own, never input.
    init(table: String, length: Int64 = 100_000) {
        self.table = table
        self.length = length
    }

    func pruneIfDue(latest: Int64, on sql: any SQLDatabase) async throws {
        let now = ContinuousClock.now
        let due = lastPrune.withLock { last in
            if let last, now - last < .seconds(600) { return false }
            last = now
            return true
        }
        guard due, latest > length else { return }
        try await sql.raw("DELETE FROM \(unsafeRaw: table) WHERE revision <= \(bind: latest - length)").run()
    }
}
