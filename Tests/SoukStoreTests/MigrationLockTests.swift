import Foundation
import SoukStore
import SoukTestSupport
import Testing

/// Several processes (or `souk migrate` runs) migrating one fresh PostgreSQL database at once:
/// they queue on an advisory lock, so every one succeeds and each migration is applied once.
@Suite struct MigrationLockTests {
    @Test(.enabled(if: TestBackend.postgresURL != nil)) func concurrentMigrationsOnPostgreSQLAllSucceed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await TestBackend.postgres.makeLocation(dataDir: folder.path)
        let databases = try (0..<3).map { _ in try SoukDatabase(location: location, logger: testLogger()) }
        await withThrowingTaskGroup(of: Void.self) { group in
            for database in databases { group.addTask { try await database.migrate() } }
            while let result = await group.nextResult() {
                #expect(throws: Never.self) { try result.get() }
            }
        }
        #expect(try await databases[0].pendingMigrations().isEmpty)
        let rows = try await databases[0].sql.raw("SELECT name, count(*) AS times FROM _fluent_migrations GROUP BY name HAVING count(*) > 1").all()
        #expect(rows.isEmpty, "no migration recorded twice")
        for database in databases { await database.shutdown() }
        await drop()
    }
}
