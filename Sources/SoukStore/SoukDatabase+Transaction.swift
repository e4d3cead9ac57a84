import FluentKit
import FluentPostgresDriver
import NIOCore
import SQLKit

extension SoukDatabase {
    /// Runs `body` in one transaction: FluentKit's on SQLite, Souk's own on PostgreSQL.
    ///
    /// Why our own on PostgreSQL: postgres-nio 1.33 drops a statement written to a connection whose
    /// channel has just closed (the pipeline is torn down one event-loop tick after the close, and
    /// `PostgresConnection` writes with no promise, so nobody fails the statement; upstream
    /// vapor/postgres-nio#487 fixed that and #501 reverted it). FluentKit writes its `ROLLBACK` after
    /// the failed statement's error has gone through a Swift task, usually after that teardown: when
    /// PostgreSQL stopped mid-transaction, the request waited for ever, kept its pooled connection
    /// and its writer turn, and SIGTERM could not stop the server (scripts/fault-check.sh found it).
    ///
    /// - `BEGIN`, `COMMIT` and `ROLLBACK` are written on the connection's event loop in the same
    ///   tick as the check that it is open, so each is either answered or never written (a closed
    ///   session needs no `ROLLBACK`: the server has rolled it back).
    /// - A watchdog fails the transaction as soon as its connection is closed (a `ChannelError`,
    ///   which is a 503), for statements `body` itself wrote after the close.
    ///
    /// On SQLite the transaction takes the write lock with its first statement. FluentKit's `BEGIN` is
    /// deferred: a transaction that read first and wrote later, while another connection (another
    /// process on the same file: `souk catalog apply` beside `souk serve`) committed in between, failed
    /// at once with `SQLITE_BUSY_SNAPSHOT` — its snapshot cannot be written on, and no busy handler
    /// retries that (SQLite's "Write-Ahead Logging", "Sometimes Queries Return SQLITE_BUSY In WAL
    /// Mode"). A write as the first statement waits in the busy handler instead, then reads the
    /// latest data. Every caller of `transaction` writes, so nothing is serialized that was not.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        guard location.isPostgres else {
            return try await db.transaction { db in
                try await (db as! any SQLDatabase).raw(Self.sqliteWriteLock).run()
                return try await body(db)
            }
        }
        // FluentKit hands out `pinned` marked as in a transaction: a nested `transaction` in `body`
        // runs inline on this connection.
        return try await db.withConnection { pinned in
            pinned.eventLoop.makeFutureWithTask {
                let connection = try await (pinned as! any PostgresDatabase)
                    .withConnection { $0.eventLoop.makeSucceededFuture($0) }.get()
                let sql = pinned as! any SQLDatabase
                let promise = connection.eventLoop.makePromise(of: T.self)
                let watchdog = connection.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) { _ in
                    // A promise completed already ignores this.
                    if connection.isClosed { promise.fail(ChannelError.ioOnClosedChannel) }
                }
                promise.futureResult.whenComplete { _ in watchdog.cancel() }
                promise.completeWithTask {
                    try await Self.run("BEGIN", on: sql, connection)
                    do {
                        let result = try await body(pinned)
                        try await Self.run("COMMIT", on: sql, connection)
                        return result
                    } catch {
                        try? await Self.run("ROLLBACK", on: sql, connection)
                        throw error
                    }
                }
                return try await promise.futureResult.get()
            }
        }.get()
    }

    /// A statement that changes nothing but takes SQLite's write lock (an `UPDATE` begins a write
    /// transaction whatever its `WHERE`); `_fluent_migrations` exists in every migrated database.
    static let sqliteWriteLock: SQLQueryString = "UPDATE _fluent_migrations SET batch = batch WHERE 0"

    /// Writes `statement` unless the connection is closed, checked and written in one tick of its
    /// event loop (SQLKit → PostgresKit → `PostgresConnection.write` is synchronous there).
    private static func run(_ statement: SQLQueryString, on sql: any SQLDatabase, _ connection: PostgresConnection) async throws {
        try await connection.eventLoop.flatSubmit {
            connection.isClosed
                ? connection.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
                : sql.raw(statement).run()
        }.get()
    }
}
