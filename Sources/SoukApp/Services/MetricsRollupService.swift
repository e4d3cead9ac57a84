import Foundation
import Logging
import ServiceLifecycle
import SoukCore
import SoukStore

/// Keeps the daily metrics rollup current in a running server: every `interval`, one pass
/// (`MetricsRollup.passOnce`) recomputes the apps whose records changed, from the first day each
/// change can alter, and carries every app on to today.
public struct MetricsRollupService: Service {
    package let rollup: MetricsRollup
    package let interval: Duration
    package let logger: Logger

    public init(database: SoukDatabase, interval: Duration, logger: Logger) {
        self.rollup = MetricsRollup(database: database,
                                    holder: "serve-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        guard interval > .zero else {
            // Off: the service stays until the group shuts down (a service that returns stops the server).
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                do {
                    if let written = try await rollup.passOnce(), !written.isEmpty {
                        logger.info("metrics rollup recomputed", metadata: [
                            "apps": "\(written.count)", "days": "\(written.map(\.days).reduce(0, +))"])
                    }
                } catch {
                    logger.error("metrics rollup failed; trying again later", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }
}
