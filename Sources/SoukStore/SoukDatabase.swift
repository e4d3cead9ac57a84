import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Synchronization

/// Where Souk keeps its data: an embedded SQLite file (the default) or a PostgreSQL server.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case sqliteInMemory
    case postgres(url: String)

    /// A redacted description, safe for logs (no password).
    public var description: String {
        switch self {
        case .sqlite(let path): return "SQLite at \(path)"
        case .sqliteInMemory: return "SQLite in memory"
        case .postgres(let url):
            guard var components = URLComponents(string: url) else { return "PostgreSQL" }
            if components.password != nil { components.password = "***" }
            return "PostgreSQL at \(components.string ?? "?")"
        }
    }

    public var isPostgres: Bool {
        if case .postgres = self { return true }
        return false
    }
}

/// The FluentKit `Databases` Souk runs on, with its migrations. Built once in the composition root;
/// `Databases` itself is a lifecycle `Service` that shuts the pools down with the service group.
public final class SoukDatabase: Sendable {
    public let databases: Databases
    public let location: DatabaseLocation
    let logger: Logger
    /// SQLite's own threads (its calls block). Not shared with other databases or with
    /// `BlockingWork`: a connection waiting for SQLite's write lock holds its thread, and when every
    /// thread of a shared pool was held so, the connection holding the lock never got one to commit
    /// (seen as minutes of 100 % CPU and pool timeouts across the test suite's many databases).
    let sqliteThreads: NIOThreadPool?

    /// Opens (lazily connects to) the database at `location`. A query that waits longer than
    /// `poolTimeout` for a free connection fails (and its request answers 503).
    public init(location: DatabaseLocation, logger: Logger, poolTimeout: Duration = .seconds(10)) throws {
        self.location = location
        self.logger = logger
        let threads: NIOThreadPool?
        switch location {
        case .sqlite, .sqliteInMemory:
            // One more thread than the pool's connections (one per event loop), so a lock holder always has one.
            let pool = NIOThreadPool(numberOfThreads: System.coreCount + 2)
            pool.start()
            threads = pool
        case .postgres:
            threads = nil
        }
        self.sqliteThreads = threads
        let wait = TimeAmount.seconds(poolTimeout.components.seconds)
        let databases = Databases(threadPool: threads ?? NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        switch location {
        case .sqlite(let path):
            databases.use(.sqlite(.init(storage: .file(path: path)), connectionPoolTimeout: wait, sqlLogLevel: .trace), as: .sqlite)
        case .sqliteInMemory:
            // A named shared-cache memory database, so every pooled connection sees the same data.
            databases.use(.sqlite(.init(storage: .memory(identifier: "souk-\(UUID().uuidString)")), connectionPoolTimeout: wait,
                                  sqlLogLevel: .trace), as: .sqlite)
        case .postgres(let url):
            var configuration = try SQLPostgresConfiguration(url: url)
            configuration.searchPath = nil
            databases.use(.postgres(configuration: configuration, maxConnectionsPerEventLoop: 8, connectionPoolTimeout: wait,
                                    sqlLogLevel: .trace), as: .psql)
        }
        self.databases = databases
        self.closedConfiguration = databases.configuration()!
    }

    /// The configuration `ClosedDatabase`'s context names (the pools it describes are gone by then).
    private let closedConfiguration: any DatabaseConfiguration

    /// A database handle for queries outside a request. After `shutdown()`, one whose every query
    /// fails with `DatabaseClosedError` (a background task may still be finishing).
    public var db: any Database {
        let eventLoop = databases.eventLoopGroup.any()
        if let open = databases.database(logger: logger, on: eventLoop) { return open }
        return ClosedDatabase(context: DatabaseContext(configuration: closedConfiguration, logger: logger, eventLoop: eventLoop),
                              dialect: location.isPostgres ? PostgresDialect() : SQLiteDialect())
    }

    /// The same connections as raw SQL, for hot paths.
    public var sql: any SQLDatabase { db as! any SQLDatabase }

    private var migrator: Migrator {
        let migrations = Migrations()
        migrations.add(SoukMigrations.all)
        return Migrator(databases: databases, migrations: migrations, logger: logger, on: databases.eventLoopGroup.any(),
                        migrationLogLevel: .debug)
    }

    /// Applies every pending migration. SQLite is switched to write-ahead logging first, so readers
    /// never wait for a writer.
    /// On PostgreSQL, migrators queue on an advisory lock, so several `souk migrate` (or several
    /// processes starting at once) never apply the same migration twice.
    public func migrate() async throws {
        switch location {
        case .sqlite, .sqliteInMemory:
            try await sql.raw("PRAGMA journal_mode=WAL").run()
            try await applyMigrations()
        case .postgres:
            let migrator = self
            try await db.withConnection { connection in
                connection.eventLoop.makeFutureWithTask {
                    let session = connection as! any SQLDatabase
                    try await session.raw("SELECT pg_advisory_lock(\(literal: Self.migrationLock))").run()
                    do {
                        try await migrator.applyMigrations()
                    } catch {
                        try? await session.raw("SELECT pg_advisory_unlock(\(literal: Self.migrationLock))").run()
                        throw error
                    }
                    try await session.raw("SELECT pg_advisory_unlock(\(literal: Self.migrationLock))").run()
                }
            }.get()
        }
    }

    /// The advisory lock key of migrations (any fixed number; "souk" in ASCII).
    static let migrationLock = 0x736F_756B

    private func applyMigrations() async throws {
        try await migrator.setupIfNeeded().get()
        try await migrator.prepareBatch().get()
    }

    /// Names of migrations not yet applied (empty when the schema is current).
    public func pendingMigrations() async throws -> [String] {
        try await migrator.setupIfNeeded().get()
        return try await migrator.previewPrepareBatch().get().map { $0.0.name }
    }

    /// Runs `SELECT 1`: true when the database answers within `deadline`. A health check must answer
    /// in time even when every pooled connection is held by a query that hangs (a database stopped
    /// mid-query), where the query itself would wait for the pool's whole timeout; the query is left
    /// to finish on its own.
    public func ping(deadline: Duration = .seconds(2)) async -> Bool {
        let answer = PingAnswer()
        return await withCheckedContinuation { continuation in
            answer.hold(continuation)
            Task { answer.give((try? await self.sql.raw("SELECT 1 AS ok").first()) != nil) }
            Task {
                try? await Task.sleep(for: deadline)
                answer.give(false)
            }
        }
    }

    /// Closes every connection.
    public func shutdown() async {
        await databases.shutdownAsync()
        try? await sqliteThreads?.shutdownGracefully()
    }
}

/// The first of a ping's two answers (the query's, or the deadline's `false`); the other is dropped.
private final class PingAnswer: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Bool, Never>?, answered: Bool)>((nil, false))

    func hold(_ continuation: CheckedContinuation<Bool, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func give(_ ok: Bool) {
        let waiting: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard !state.answered, let continuation = state.continuation else { return nil }
            state.answered = true
            return continuation
        }
        waiting?.resume(returning: ok)
    }
}
