import FluentKit
import Logging
import NIOCore
import SQLKit

/// What `SoukDatabase.db` hands out once its pools are shut down: every query fails with
/// `DatabaseClosedError`. Work that outlives the service group (a cache refresh a request started
/// just before shutdown) then ends with an error instead of stopping the process.
struct ClosedDatabase: Database, SQLDatabase {
    let context: DatabaseContext
    let dialect: any SQLDialect

    var logger: Logger { context.logger }
    var eventLoop: any EventLoop { context.eventLoop }
    var inTransaction: Bool { false }

    private func closed<T>() -> EventLoopFuture<T> {
        eventLoop.makeFailedFuture(DatabaseClosedError())
    }

    func execute(query: DatabaseQuery, onOutput: @escaping @Sendable (any DatabaseOutput) -> Void) -> EventLoopFuture<Void> { closed() }
    func execute(schema: DatabaseSchema) -> EventLoopFuture<Void> { closed() }
    func execute(enum: DatabaseEnum) -> EventLoopFuture<Void> { closed() }
    func transaction<T>(_ closure: @escaping @Sendable (any Database) -> EventLoopFuture<T>) -> EventLoopFuture<T> { closed() }
    func withConnection<T>(_ closure: @escaping @Sendable (any Database) -> EventLoopFuture<T>) -> EventLoopFuture<T> { closed() }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> { closed() }
}

/// A query made after the database was shut down.
public struct DatabaseClosedError: Error, CustomStringConvertible {
    public var description: String { "The database is shut down." }
}
