import NIOCore
import NIOPosix

/// Threads for work that blocks (unzipping, copying and hashing packages of many gigabytes, fsync,
/// decoding and resizing images, bcrypt), so that the server's event loops and Swift's concurrency
/// pool keep answering requests meanwhile (docs/benchmarks.md has the measurement).
///
/// Not `NIOThreadPool.singleton`: SQLite's queries run there (`SoukDatabase`), one thread per core,
/// and a few minutes-long imports or a burst of bcrypt sign-ins on those threads left every SQLite
/// query waiting until the pool timed out (seen as 503s across the test suite).
public enum BlockingWork {
    public static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        return pool
    }()

    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }

    /// Threads for short work a person waits for (bcrypt at sign-in): two package imports of a few
    /// gigabytes hold `pool`'s threads for minutes, and a sign-in queued behind them timed out.
    static let shortPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        return pool
    }()

    /// Runs `work` (a fraction of a second, a person waiting) on threads long jobs never hold.
    public static func runShort<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await shortPool.runIfActive(work)
    }
}

func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingWork.run(work)
}
