import Crypto
import Foundation
import SoukCore
import SoukStore

/// The scheduled exports' metrics files (docs/metrics.md, "Scheduled exports to a bucket"): beside
/// an organisation's day of purchases and events, `metrics.jsonl` (the day's lines as `souk export
/// metrics` writes them) and `cohorts.jsonl` (the app's cohort table as the rollup holds it), both
/// from the daily rollup, for an app whose in-app catalog is the organisation's.
extension ScheduledExportService {
    /// Writes the day's metrics and the cohort table of the entry's app; nothing when the
    /// organisation does not hold the app's catalog (metrics are the catalog's, as `metrics:read`
    /// reaches them). A day the rollup has not computed yet is brought up to date first, under the
    /// rollup's own lease.
    func writeMetrics(_ entry: ScheduledExportDay, settings: ScheduledExportSettings) async throws {
        guard try await exports.ownership.sales(of: entry.app, organisation: entry.developerID).catalog else { return }
        let rollups = MetricRollupStore(database: exports.database)
        if let position = try await rollups.position(app: entry.app), position.throughDay >= entry.day {
            // Computed through the day already.
        } else {
            _ = try await MetricsRollup(database: exports.database, holder: holder, now: now)
                .rebuild(app: entry.app, from: try await rollups.position(app: entry.app)?.throughDay, wait: .seconds(60))
        }
        let metricsExports = MetricsExports(ownership: exports.ownership, database: exports.database)
        let stream = try await metricsExports.openMetrics(app: entry.app, from: entry.day, to: entry.day, format: .jsonl,
                                                          currency: reportingCurrency)
        let store = S3ObjectStore(settings: settings.store)
        func key(_ file: String) -> String { settings.key(developer: entry.developerID, day: entry.day.description, app: entry.app, file: file) }
        try await upload(to: store, key: key("metrics.jsonl")) { emit in try await stream.write(emit) }
        let cohorts = try await metricsExports.cohorts(app: entry.app, from: Self.firstCohort, to: entry.day.month, format: .jsonl)
        try await upload(to: store, key: key("cohorts.jsonl")) { emit in
            try await emit(cohorts.map { $0 + "\n" }.joined())
            return cohorts.count
        }
    }

    /// Earlier than any cohort (months are read from 2000 on).
    static let firstCohort = StatementMonth("2000-01")!

    /// Writes what `fill` emits to a staging file in the work folder, then puts it in the bucket
    /// under `key` with its SHA-256; answers what `fill` answered (its rows).
    @discardableResult
    func upload(to store: S3ObjectStore, key: String, _ fill: (_ emit: (String) async throws -> Void) async throws -> Int) async throws -> Int {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        // An upload's staging file: what a killed process leaves behind is swept (`StaleFiles`).
        let path = WorkOwner.name(prefix: "upload-", in: workDir)
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BlobError.unwritable(path)
        }
        var hash = SHA256(), size: Int64 = 0
        let rows: Int
        do {
            rows = try await fill { text in
                let bytes = Data(text.utf8)
                hash.update(data: bytes)
                size += Int64(bytes.count)
                try handle.write(contentsOf: bytes)
            }
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        let digest = hash.finalize().map { String(format: "%02x", $0) }.joined()
        try await store.put(fileAt: path, key: key, sha256: digest, size: size, now: now())
        return rows
    }
}
