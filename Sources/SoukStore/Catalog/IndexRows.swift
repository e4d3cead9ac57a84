import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import NIOCore
import Synchronization

/// The rows of the in-memory indexes' full loads, read by position in each driver's own types.
///
/// Reading through SQLKit (`row.decode(column:as:)`) costs a `Decodable` round trip per cell — a
/// coding path, a decoder, a lookup of the column's name — which was most of the time a full load
/// took (docs/benchmarks.md, "Start-up to ready"). On PostgreSQL the rows are decoded as typed
/// tuples (`PostgresRow.decode((Int64, String, …).self)`), streamed from one connection; on SQLite
/// each row's values are taken by index. A query names its columns in the order the row type reads
/// them, and its parameters as `$1`, `$2` … (rewritten to `?1`, `?2` for SQLite).
struct IndexRows: Sendable {
    /// A query parameter.
    enum Bind: Sendable {
        case int64(Int64)
        case text(String)
    }

    private enum Backend: Sendable {
        case postgres(PostgresConnection, Logger)
        case sqlite(any SQLiteDatabase)
    }

    private let backend: Backend

    /// Runs `body` with one connection of `database` (PostgreSQL) or its pool (SQLite), through
    /// which it reads its queries' rows.
    static func session<Result: Sendable>(_ database: SoukDatabase,
                                          _ body: @escaping @Sendable (IndexRows) async throws -> Result) async throws -> Result {
        let db = database.db
        if database.location.isPostgres {
            guard let postgres = db as? any PostgresDatabase else {
                throw CatalogError.invalid("the PostgreSQL driver gave no PostgreSQL connection")
            }
            let logger = database.logger
            return try await postgres.withConnection { connection in
                connection.eventLoop.makeFutureWithTask { try await body(IndexRows(backend: .postgres(connection, logger))) }
            }.get()
        }
        guard let sqlite = db as? any SQLiteDatabase else {
            throw CatalogError.invalid("the SQLite driver gave no SQLite connection")
        }
        return try await body(IndexRows(backend: .sqlite(sqlite)))
    }

    /// The rows of `sql`, each decoded by `postgres` or `sqlite` (whichever database this is).
    func rows<Row>(_ sql: String, _ binds: [Bind], postgres: (PostgresRow) throws -> Row,
                   sqlite: (SQLiteCells) throws -> Row) async throws -> [Row] {
        switch backend {
        case .postgres(let connection, let logger):
            var bindings = PostgresBindings(capacity: binds.count)
            for bind in binds {
                switch bind {
                case .int64(let value): bindings.append(value)
                case .text(let value): bindings.append(value)
                }
            }
            var rows: [Row] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) {
                rows.append(try postgres(row))
            }
            return rows
        case .sqlite(let database):
            let data = binds.map { bind -> SQLiteData in
                switch bind {
                case .int64(let value): return .integer(Int(value))
                case .text(let value): return .text(value)
                }
            }
            // `$n` is a named parameter to SQLite; `?n` the n-th.
            let query = sql.replacingOccurrences(of: "$", with: "?")
            // The rows are gathered on the connection's own thread by `SQLiteConnection`'s async
            // `query`. The pool's `query` (what `SQLiteDatabase.query` reaches through Fluent) hands
            // each row to an event loop as a task of its own: a wake-up and a future per row, about a
            // fifth of the CPU of a 1,000,000-app start (docs/benchmarks.md, "Start-up to ready").
            let found = try await database.withConnection { connection in
                connection.eventLoop.makeFutureWithTask {
                    let gathered = Mutex<[SQLiteRow]>([])
                    try await connection.query(query, data) { row in gathered.withLock { $0.append(row) } }
                    return gathered.withLock { $0 }
                }
            }.get()
            return try found.map { try sqlite(SQLiteCells($0)) }
        }
    }
}

/// One SQLite row's values by position (`SQLiteRow.columns` builds its array once).
struct SQLiteCells {
    let values: [SQLiteData]

    init(_ row: SQLiteRow) {
        values = row.columns.map(\.data)
    }

    func isNull(_ index: Int) -> Bool {
        values[index] == .null
    }

    func int64(_ index: Int) throws -> Int64 {
        switch values[index] {
        case .integer(let value): return Int64(value)
        case .float(let value): return Int64(value)
        case .text(let text): if let value = Int64(text) { return value }
        default: break
        }
        throw CatalogError.invalid("column \(index) is not an integer: \(values[index])")
    }

    func optionalInt64(_ index: Int) throws -> Int64? {
        isNull(index) ? nil : try int64(index)
    }

    func string(_ index: Int) throws -> String {
        switch values[index] {
        case .text(let text): return text
        case .blob(let bytes): return String(buffer: bytes)
        case .integer(let value): return String(value)
        case .float(let value): return String(value)
        case .null: throw CatalogError.invalid("column \(index) is NULL")
        }
    }

    func optionalString(_ index: Int) throws -> String? {
        isNull(index) ? nil : try string(index)
    }

    func date(_ index: Int) throws -> Date {
        guard let date = Date(sqliteData: values[index]) else { throw CatalogError.invalid("column \(index) is not a date: \(values[index])") }
        return date
    }
}

extension IndexRows {
    /// The `FROM` items of a page's versions: `apps a` with each app's versions `v` that meet
    /// `condition` (on `v.`), for a `WHERE` on `a.apple_item_id` to follow. On PostgreSQL each app's
    /// versions are looked up by `app_versions_app` (a `LATERAL` subquery that `OFFSET 0` keeps from
    /// being flattened): with a plain join the planner hashed the page's apps and scanned every
    /// version of the catalog for each page, 50 scans of 1,000,000 rows per index at 1,000,000 apps,
    /// which took more CPU than everything else of the start-up (docs/benchmarks.md, "Start-up to
    /// ready"). SQLite, without statistics, preferred the equality on `review_state`
    /// (`app_versions_in_review`) and read every released version for each page (157 s to load
    /// 1,000,000 apps): there `CROSS JOIN` keeps the page's apps in the outer loop (SQLite's
    /// documentation, "The SQLite Query Optimizer Overview", "Manual Control Of Query Plans Using
    /// CROSS JOIN") and `INDEXED BY` makes each app's versions one lookup in `app_versions_app`.
    static func pageVersions(postgres: Bool, where condition: String) -> String {
        postgres
            ? "apps a CROSS JOIN LATERAL (SELECT * FROM app_versions v WHERE v.app_id = a.id AND \(condition) OFFSET 0) v"
            : "apps a CROSS JOIN app_versions v INDEXED BY app_versions_app ON v.app_id = a.id AND \(condition)"
    }
}
