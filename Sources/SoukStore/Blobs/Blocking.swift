import NIOPosix

/// Runs file work that blocks (unzipping, copying and hashing packages of many gigabytes, fsync)
/// on NIO's thread pool, so that the server's event loops and Swift's concurrency pool keep
/// answering requests meanwhile (docs/benchmarks.md has the measurement).
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(work)
}
