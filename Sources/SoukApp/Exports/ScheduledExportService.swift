import Foundation
import Logging
import ServiceLifecycle
import SoukCore
import SoukStore

/// The scheduled exports (docs/metrics.md, "Exports"): every `interval`, the process holding the
/// `scheduled-exports` maintenance lease writes each organisation's apps' purchases and events of
/// every day up to yesterday (UTC) not written yet to the bucket, as CSV, and records each day in
/// `scheduled_exports` — so a restart neither skips nor repeats a day, and a day whose upload failed
/// is tried again at the next run (logged, and counted on `/metrics`).
public struct ScheduledExportService: Service {
    /// The lease name.
    package static let job = "scheduled-exports"
    /// Most days one organisation's app catches up on at its first run after a long stop.
    package static let catchUpDays = 31

    package let settings: ScheduledExportSettings?
    package let exports: RawExports
    package let ledger: ScheduledExportLedger
    package let lease: MaintenanceLease
    package let workDir: String
    package let interval: Duration
    package let metrics: ScheduledExportMetrics?
    /// The currency the metrics files are in (`reportingCurrency`).
    package let reportingCurrency: String
    package let logger: Logger
    package let now: @Sendable () -> Date
    package let holder = "exports-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"

    package init(settings: ScheduledExportSettings?, exports: RawExports, lease: MaintenanceLease, workDir: String,
                 interval: Duration = .seconds(600), metrics: ScheduledExportMetrics?, reportingCurrency: String = "USD", logger: Logger,
                 now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.exports = exports
        self.ledger = ScheduledExportLedger(database: exports.database, now: now)
        self.lease = lease
        self.workDir = workDir
        self.interval = interval
        self.metrics = metrics
        self.reportingCurrency = reportingCurrency
        self.logger = logger
        self.now = now
    }

    /// What one run did: the days written and those that failed.
    package struct Report: Sendable, Equatable {
        package var written: [ScheduledExportDay] = []
        package var failed: [ScheduledExportDay] = []
    }

    public func run() async throws {
        guard settings != nil else {
            // Off: the service stays until the group shuts down (a service that returns stops the server).
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await runOnce()
                } catch {
                    logger.error("scheduled exports failed; trying again later", metadata: ["error": "\(String(reflecting: error))"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One run, when this process gets the lease (nil when another process holds it).
    @discardableResult
    package func runOnce() async throws -> Report? {
        guard let settings else { return Report() }
        guard try await lease.claim(Self.job, holder: holder, for: 900) else { return nil }
        let yesterday = MetricDay(containing: now()).adding(days: -1)
        for (developer, app) in try await ledger.organisationApps() {
            // The first run for an app starts with yesterday; later ones go on from the last day recorded.
            let first = max(try await ledger.latestDay(developer: developer, app: app)?.adding(days: 1) ?? yesterday,
                            yesterday.adding(days: 1 - Self.catchUpDays))
            guard first <= yesterday else { continue }
            try await ledger.addDue(developer: developer, app: app, days: (first.ordinal...yesterday.ordinal).map(MetricDay.init(ordinal:)))
        }
        var report = Report()
        for var entry in try await ledger.due(through: yesterday) {
            guard try await lease.claim(Self.job, holder: holder, for: 900) else { return report }
            do {
                let counts = try await write(entry, settings: settings)
                try await ledger.markWritten(entry.id, purchases: counts.purchases, events: counts.events)
                entry.purchases = counts.purchases
                entry.events = counts.events
                report.written.append(entry)
                metrics?.written.increment()
                logger.info("scheduled export written", metadata: ["developer": "\(entry.developerID)", "app": "\(entry.app)", "day": "\(entry.day)",
                                                                   "purchases": "\(counts.purchases)", "events": "\(counts.events)"])
            } catch let refusal as DeveloperOperationError where refusal == DeveloperOwnership.noSales {
                // The organisation gave the app away (or its catalog) since the day was due: nothing of it is theirs to export.
                try await ledger.forget(entry.id)
                logger.info("scheduled export dropped: the app is no longer the organisation's",
                            metadata: ["developer": "\(entry.developerID)", "app": "\(entry.app)", "day": "\(entry.day)"])
            } catch {
                let reason = "\(error)"
                try await ledger.markFailed(entry.id, error: reason)
                entry.lastError = reason
                report.failed.append(entry)
                metrics?.failed.increment()
                logger.error("scheduled export failed; trying again at the next run",
                             metadata: ["developer": "\(entry.developerID)", "app": "\(entry.app)", "day": "\(entry.day)", "error": "\(reason)"])
            }
        }
        try await lease.release(Self.job, holder: holder)
        return report
    }

    /// Writes the day's purchases and events of the entry's app to the bucket, then its metrics and
    /// cohorts when the organisation holds the app's in-app catalog (`writeMetrics`).
    func write(_ entry: ScheduledExportDay, settings: ScheduledExportSettings) async throws -> (purchases: Int, events: Int) {
        let store = S3ObjectStore(settings: settings.store)
        var counts: [RawExportKind: Int] = [:]
        for kind in RawExportKind.allCases {
            let request = RawExportRequest(kind: kind, app: entry.app, from: entry.day, to: entry.day, format: .csv)
            let stream = try await exports.open(organisation: entry.developerID, request)
            counts[kind] = try await upload(to: store, key: settings.key(developer: entry.developerID, day: entry.day.description, app: entry.app,
                                                                         file: "\(kind.rawValue).csv")) { emit in
                try await stream.write(emit)
            }
        }
        try await writeMetrics(entry, settings: settings)
        return (counts[.purchases] ?? 0, counts[.events] ?? 0)
    }
}

extension ScheduledExportService {
    /// The server's scheduled exports, as `scheduledExports` and its settings say (off: a service
    /// that returns at once).
    package init(_ runtime: SoukRuntime, metrics: ScheduledExportMetrics?) {
        self.init(settings: runtime.config.scheduledExports, exports: RawExports(runtime: runtime, now: { Date() }),
                  lease: MaintenanceLease(database: runtime.database), workDir: runtime.config.workDir, metrics: metrics,
                  reportingCurrency: runtime.config.reportingCurrency, logger: runtime.logger)
    }
}
