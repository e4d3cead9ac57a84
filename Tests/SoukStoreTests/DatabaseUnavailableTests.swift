import Foundation
import Logging
import SQLKit
import SoukStore
import SoukTestSupport
import Testing

/// A database that cannot be reached is told apart from a query that is wrong: the first is an
/// outage (503 with Retry-After), the second a bug (500), and neither is ever a verdict.
@Suite struct DatabaseUnavailableTests {
    /// What a first query on `location` throws (nil: it answered).
    static func error(_ location: DatabaseLocation) async throws -> (any Error)? {
        let database = try SoukDatabase(location: location, logger: Logger(label: "souk.test"))
        var failure: (any Error)?
        do {
            _ = try await database.sql.raw("SELECT 1 AS ok").first()
        } catch {
            failure = error
        }
        await database.shutdown()
        return failure
    }

    @Test func aPostgreSQLServerThatIsNotThereIsAnOutage() async throws {
        // Port 1 on the loopback: nothing listens there, the connection is refused.
        let error = try #require(try await Self.error(.postgres(url: "postgres://souk:souk@127.0.0.1:1/souk?sslmode=disable")))
        #expect(DatabaseUnavailable.matches(error), "\(String(reflecting: error))")
    }

    @Test func aSQLiteFileThatCannotBeOpenedIsAnOutage() async throws {
        let error = try #require(try await Self.error(.sqlite(path: "/nonexistent-\(UUID().uuidString)/souk.sqlite")))
        #expect(DatabaseUnavailable.matches(error), "\(String(reflecting: error))")
    }

    /// A cache refresh a request started just before shutdown once reached for a connection after
    /// the pools were gone, and the process stopped on a force-unwrap.
    @Test(arguments: TestBackend.available)
    func aQueryAfterShutdownFailsAsAnOutageInsteadOfStoppingTheProcess(_ backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        let database = try SoukDatabase(location: location, logger: Logger(label: "souk.test"))
        _ = try await database.sql.raw("SELECT 1 AS ok").first()
        await database.shutdown()
        await drop()
        for query in [{ _ = try await database.sql.raw("SELECT 1 AS ok").first() },
                      { _ = try await database.db.transaction { _ in } }] as [@Sendable () async throws -> Void] {
            do {
                try await query()
                Issue.record("a query answered after shutdown")
            } catch {
                #expect(error is DatabaseClosedError && DatabaseUnavailable.matches(error), "\(String(reflecting: error))")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aWrongQueryIsNotAnOutage(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            do {
                _ = try await store.database.sql.raw("SELECT * FROM no_such_table").all()
                Issue.record("the query succeeded")
            } catch {
                #expect(!DatabaseUnavailable.matches(error), "\(String(reflecting: error))")
            }
        }
    }
}

@Suite struct ShortLivedValueTests {
    struct Outage: Error {}

    @Test func aFailingLoadKeepsTheLastValueOnlyWhenAsked() async throws {
        let value = ShortLivedValue<Int>(lifetime: .zero)
        #expect(try await value.value { 1 } == 1)
        #expect(try await value.value(keepOnFailure: true) { throw Outage() } == 1)
        await #expect(throws: Outage.self) { try await value.value { throw Outage() } }
        let empty = ShortLivedValue<Int>(lifetime: .zero)
        await #expect(throws: Outage.self) { try await empty.value(keepOnFailure: true) { throw Outage() } }
    }
}
