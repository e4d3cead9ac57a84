import Foundation
import SoukCore
import SoukStore

/// The daily metrics rollup under the maintenance lease (docs/metrics.md, "The daily rollup"): the
/// background pass and `souk metrics rebuild` hold the same lease, so with several processes on one
/// PostgreSQL one computation writes at a time.
package struct MetricsRollup: Sendable {
    /// The lease name.
    package static let job = "metrics-rollup"
    package let job: MetricRollupJob
    package let lease: MaintenanceLease
    /// Who this process is, in the lease table.
    package let holder: String

    package init(database: SoukDatabase, holder: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.job = MetricRollupJob(database: database, now: now)
        self.lease = MaintenanceLease(database: database, now: now)
        self.holder = holder
    }

    /// One background pass when this process gets the lease; nil when another process holds it.
    package func passOnce() async throws -> [MetricRollupJob.Written]? {
        guard try await lease.claim(Self.job, holder: holder, for: 600) else { return nil }
        let written = try await job.catchUp()
        try await lease.release(Self.job, holder: holder)
        return written
    }

    /// Recomputes on demand, waiting (up to `wait`) for a pass another process is running to end.
    package func rebuild(app: String?, from: MetricDay?, wait: Duration = .seconds(900)) async throws -> [MetricRollupJob.Written] {
        let deadline = ContinuousClock.now + wait
        while try await !lease.claim(Self.job, holder: holder, for: 3_600) {
            guard ContinuousClock.now < deadline else { throw MetricsRollupBusy() }
            try await Task.sleep(for: .milliseconds(500))
        }
        do {
            let written = try await job.rebuild(app: app, from: from)
            try await lease.release(Self.job, holder: holder)
            return written
        } catch {
            try? await lease.release(Self.job, holder: holder)
            throw error
        }
    }
}

/// Another process held the rollup's lease for longer than a rebuild waits.
package struct MetricsRollupBusy: Error, CustomStringConvertible {
    package var description: String { "another process is computing the metrics rollup; try again later" }
}
