import Foundation
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The rollup's background pass and `souk metrics rebuild` share the maintenance lease, on both
/// databases: while another process holds it, a pass does nothing and a rebuild waits (and gives
/// up, saying so, after its wait); once it is free, they run.
@Suite struct MetricsRollupLeaseTests {
    @Test(arguments: TestBackend.available)
    func aPassAndARebuildWaitForTheProcessHoldingTheLease(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let lease = MaintenanceLease(database: fixture.database)
            #expect(try await lease.claim(MetricsRollup.job, holder: "other", for: 600))
            let rollup = MetricsRollup(database: fixture.database, holder: "this")
            #expect(try await rollup.passOnce() == nil)
            await #expect(throws: MetricsRollupBusy.self) { _ = try await rollup.rebuild(app: nil, from: nil, wait: .milliseconds(300)) }
            try await lease.release(MetricsRollup.job, holder: "other")
            #expect(try await rollup.passOnce() == [])
            #expect(try await rollup.rebuild(app: nil, from: nil) == [])
            // Done, it let the lease go.
            #expect(try await lease.claim(MetricsRollup.job, holder: "other", for: 600))
        }
    }
}
