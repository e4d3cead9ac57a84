import FluentPostgresDriver
import FluentSQLiteDriver
import NIOCore
import NIOPosix

/// Tells an outage of the database — it cannot be reached, closed the connection, is shutting
/// down, is out of resources or cannot write its file — from everything else. An outage is
/// answered `503 Service Unavailable` with `Retry-After` (`ProblemMiddleware`), never a verdict
/// such as "not found" or "withdrawn"; any other database error is a bug (500).
public enum DatabaseUnavailable {
    /// True when `error` (from FluentKit, PostgresNIO, SQLiteNIO, the connection pools or NIO)
    /// means the database is out of reach or cannot serve right now.
    public static func matches(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError:
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                 .sslUnsupported, .failedToAddSSLHandler:
                return true
            case .server:
                return unavailable(sqlState: error.serverInfo?[.sqlState])
            default:
                return false
            }
        case is ConnectionPoolError, is ConnectionPoolTimeoutError, is DatabaseClosedError:
            return true
        case is NIOConnectionError, is ChannelError, is IOError:
            return true
        case let error as SQLiteError:
            switch error.reason {
            case .busy, .busyTimeout, .busyInRecovery, .locked, .ioError, .full, .cantOpen, .readOnly, .notADatabase:
                return true
            default:
                return false
            }
        default:
            return false
        }
    }

    /// PostgreSQL's SQLSTATE classes for an unusable server: 08 (connection exception),
    /// 53 (insufficient resources), 57P01–57P03 (shut down, crashed, cannot connect now).
    static func unavailable(sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
}
