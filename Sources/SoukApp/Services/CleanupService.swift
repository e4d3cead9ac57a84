import Foundation
import Logging
import ServiceLifecycle
import SoukStore
import Synchronization

/// Sweeps expired rows (`Cleanup`) every `interval` in a running server, and the files killed work
/// left behind (`StaleFiles`) at start and with every sweep; blobs no row names
/// (`UnreferencedBlobs`) at most every `blobSweepInterval`, since that sweep reads every blob's
/// name. With several processes on one PostgreSQL, the sweep is claimed through a
/// `MaintenanceLease`, so one process runs it at a time.
public struct CleanupService: Service {
    /// The lease name, shared with `souk maintenance cleanup`.
    package static let job = "cleanup"
    /// How often a server looks for unreferenced blobs (`souk maintenance cleanup` always does).
    public static let blobSweepInterval: TimeInterval = 6 * 3_600

    package let cleanup: Cleanup
    package let files: StaleFiles?
    package let blobs: UnreferencedBlobs?
    package let lease: MaintenanceLease
    package let interval: Duration
    package let logger: Logger
    /// Who this process is, in the lease table.
    package let holder = "serve-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
    /// When this process last swept the blobs.
    package let lastBlobSweep = LastRun()

    package final class LastRun: Sendable {
        package let at = Mutex<Date?>(nil)
    }

    public init(cleanup: Cleanup, files: StaleFiles? = nil, blobs: UnreferencedBlobs? = nil, lease: MaintenanceLease,
                interval: Duration, logger: Logger) {
        self.cleanup = cleanup
        self.files = files
        self.blobs = blobs
        self.lease = lease
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        // What a process killed mid-import left behind goes at the next start (files only: cheap).
        await sweepFiles()
        guard interval > .zero else { return }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                do {
                    try await sweepOnce()
                } catch {
                    logger.error("cleanup failed; trying again later", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }

    /// One sweep, when this process gets the lease; answers nil when another process holds it.
    /// Unreferenced blobs are looked for when `blobsNow`, or when this process last did it
    /// `blobSweepInterval` ago or never.
    @discardableResult
    public func sweepOnce(blobsNow: Bool = false) async throws -> [(name: String, removed: Int)]? {
        guard try await lease.claim(Self.job, holder: holder, for: 600) else { return nil }
        var report = try await cleanup.run()
        if let blobs, blobsNow || lastBlobSweep.at.withLock({ $0.map { -$0.timeIntervalSinceNow >= Self.blobSweepInterval } ?? true }) {
            let swept = try await blobs.sweep()
            lastBlobSweep.at.withLock { $0 = Date() }
            report.append(("unreferenced blobs", swept.blobs))
            if swept.blobs > 0 {
                logger.info("removed blobs no row names", metadata: ["blobs": "\(swept.blobs)", "bytes": "\(swept.bytes)"])
            }
        }
        try await lease.release(Self.job, holder: holder)
        if let stale = await sweepFiles() { report.append(("stale files", stale.entries)) }
        let removed = report.filter { $0.removed > 0 }
        if !removed.isEmpty {
            logger.info("cleanup removed expired rows", metadata: Dictionary(uniqueKeysWithValues: removed.map { ($0.name, "\($0.removed)") }))
        }
        return report
    }

    /// Removes stale staging and work files; logs what went, and never fails the sweep.
    @discardableResult
    package func sweepFiles() async -> StaleFiles.Report? {
        guard let files else { return nil }
        do {
            let report = try await files.sweep()
            if report.entries > 0 {
                logger.info("removed files left by interrupted work", metadata: ["entries": "\(report.entries)", "bytes": "\(report.bytes)"])
            }
            return report
        } catch {
            logger.warning("stale files not swept; trying again later", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }
}
