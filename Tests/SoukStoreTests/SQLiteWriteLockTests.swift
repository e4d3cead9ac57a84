import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// Two processes on one SQLite file (`souk catalog apply` beside a running `souk serve`): a
/// transaction that read before it wrote, while the other process committed in between, used to
/// fail at once with `SQLITE_BUSY_SNAPSHOT` ("database is locked"). `SoukDatabase.transaction` takes
/// the write lock with its first statement, so the other process's write waits instead.
@Suite struct SQLiteWriteLockTests {
    @Test func aTransactionHoldsTheWriteLockBeforeItsFirstStatement() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/souk.sqlite"
        let first = try SoukDatabase(location: .sqlite(path: path), logger: testLogger())
        try await first.migrate()
        let second = try SoukDatabase(location: .sqlite(path: path), logger: testLogger())
        let catalogs = CommerceCatalogStore(database: first)

        // The other process's connection gives up at once instead of waiting in its busy handler,
        // so the test sees whether the lock is held (it would otherwise wait for the commit).
        let refusal = try await second.db.withConnection { connection in
            connection.eventLoop.makeFutureWithTask {
                let pinned = connection as! any SQLDatabase
                try await pinned.raw("PRAGMA busy_timeout = 0").run()
                return try await first.transaction { db -> String? in
                    // Read first, as an apply does, before the other process tries to write.
                    _ = try await (db as! any SQLDatabase).raw("SELECT count(*) AS n FROM commerce_apps").all()
                    do {
                        try await pinned.raw("UPDATE marketplace SET id = id").run()
                        return nil
                    } catch {
                        return String(describing: error)
                    }
                }
            }
        }.get()
        #expect(refusal?.contains("locked") == true, "the other process could write inside the transaction")

        // And the whole path: an apply after the other process's commit reads and writes the latest.
        try await second.db.withConnection { connection in
            (connection as! any SQLDatabase).raw("UPDATE marketplace SET id = id").run()
        }.get()
        let report = try await catalogs.apply(CommerceCatalogSamples.reader)
        #expect(report.applied)
        await first.shutdown()
        await second.shutdown()
    }
}
