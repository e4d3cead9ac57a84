import Foundation
import SoukStore
import SoukTestSupport
import Testing

/// `licenses` carries its own autovacuum settings on PostgreSQL (renewals leave a dead row each;
/// docs/benchmarks.md, "Ten times more").
@Suite struct LicensesAutovacuumTests {
    @Test(.enabled(if: TestBackend.postgresURL != nil)) func licensesAreVacuumedAtOnePercent() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await TestBackend.postgres.makeLocation(dataDir: folder.path)
        let database = try SoukDatabase(location: location, logger: testLogger())
        try await database.migrate()
        let options = try await database.sql.raw("SELECT array_to_string(reloptions, ',') AS options FROM pg_class WHERE relname = 'licenses'")
            .first()?.decode(column: "options", as: String?.self)
        #expect(options?.split(separator: ",").sorted() == [
            "autovacuum_analyze_scale_factor=0.02", "autovacuum_vacuum_scale_factor=0.01", "autovacuum_vacuum_threshold=10000",
        ])
        await database.shutdown()
        await drop()
    }
}
