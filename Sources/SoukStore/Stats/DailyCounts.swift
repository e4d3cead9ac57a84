import Foundation
import SQLKit
import Synchronization

/// Counts per UTC day (`daily_counts`): what the dashboard draws that no table keeps — license
/// requests, their failures, licenses issued. `add` only touches memory (the request paths it is
/// called from stay free of writes); `flush` adds what gathered to the rows with one upsert per
/// (day, name), so several processes add to the same rows. What has not been flushed when a
/// process dies is lost: these are statistics, not records.
public final class DailyCounts: Sendable {
    struct Key: Hashable {
        var day: String
        var name: String
    }

    let database: SoukDatabase
    private let pending = Mutex<[Key: Int]>([:])
    /// A flush and a read take turns: a read between a flush taking its batch from `pending` and
    /// writing it would see the batch in neither place.
    private let turns = Turns()

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// `2026-11-27`: the UTC day of `date`. Arithmetic only (the license path calls it on every
    /// request): days since 1970 to a civil date, after Howard Hinnant's `civil_from_days`.
    public static func day(_ date: Date) -> String {
        let z = Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public func add(_ name: String, at date: Date, count: Int = 1) {
        let key = Key(day: Self.day(date), name: name)
        pending.withLock { $0[key, default: 0] += count }
    }

    /// Writes what gathered since the last flush; on failure it is kept for the next one.
    public func flush() async throws {
        try await turns.inTurn { try await self.flushBatch() }
    }

    private func flushBatch() async throws {
        let batch = pending.withLock { counts in
            defer { counts = [:] }
            return counts
        }
        var written: Set<Key> = []
        do {
            for (key, count) in batch.sorted(by: { ($0.key.day, $0.key.name) < ($1.key.day, $1.key.name) }) {
                try await database.sql.raw("""
                    INSERT INTO daily_counts (day, name, count) VALUES (\(bind: key.day), \(bind: key.name), \(bind: Int64(count)))
                    ON CONFLICT (day, name) DO UPDATE SET count = daily_counts.count + excluded.count
                    """).run()
                written.insert(key)
            }
        } catch {
            pending.withLock { counts in
                for (key, count) in batch where !written.contains(key) { counts[key, default: 0] += count }
            }
            throw error
        }
    }

    /// The counts of `name` for the `days` UTC days ending with `end`'s, oldest first (0 for a day
    /// without a row), including what this process has not flushed yet.
    public func series(_ name: String, days: Int, endingAt end: Date) async throws -> [(day: String, count: Int)] {
        try await turns.inTurn { try await self.read(name, days: days, endingAt: end) }
    }

    private func read(_ name: String, days: Int, endingAt end: Date) async throws -> [(day: String, count: Int)] {
        let labels = (0..<days).reversed().map { Self.day(end.addingTimeInterval(-Double($0) * 86_400)) }
        let rows = try await database.sql.raw("""
            SELECT day, count FROM daily_counts WHERE name = \(bind: name) AND day >= \(bind: labels.first ?? "") AND day <= \(bind: labels.last ?? "")
            """).all()
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode(column: "day", as: String.self)] = Int(try row.decode(column: "count", as: Int64.self)) }
        let unflushed = pending.withLock { $0 }
        return labels.map { ($0, (counts[$0] ?? 0) + (unflushed[Key(day: $0, name: name)] ?? 0)) }
    }
}

/// One holder at a time, the others waiting in order (an async lock: the holder awaits the database).
private actor Turns {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func inTurn<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if held {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            held = true
        }
        defer {
            if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
