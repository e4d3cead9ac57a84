import Logging
import ServiceLifecycle
import SoukStore

/// Keeps one of the in-memory indexes a request needs current in a running server: loads it at
/// start, in the background (the port is open meanwhile; `GET /health/ready` answers 503 until it is
/// loaded, retrying a load that fails), then refreshes it every `interval`, so requests never wait
/// for a refresh and no process lags more than about one interval behind a change. The catalog
/// index (`refresh()`) and the storefront index (`catalog()`, which starts a refresh from the change
/// log when one is due) are each kept by one.
package struct IndexKeeper: Service {
    package let part: Readiness.Part
    package let interval: Duration
    package let readiness: Readiness
    package let logger: Logger
    package let load: @Sendable () async throws -> Void

    package static func catalog(_ index: CatalogIndex, interval: Duration, readiness: Readiness, logger: Logger) -> IndexKeeper {
        IndexKeeper(part: .catalogIndex, interval: interval, readiness: readiness, logger: logger) { try await index.refresh() }
    }

    package static func storefront(_ index: StorefrontIndex, interval: Duration, readiness: Readiness, logger: Logger) -> IndexKeeper {
        IndexKeeper(part: .storefrontIndex, interval: interval, readiness: readiness, logger: logger) { _ = try await index.catalog() }
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await readiness.warmUp(part, onFailure: { error in
                logger.error("\(part.rawValue) load failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
            }, load: load)
            while !Task.isCancelled {
                // With interval 0 every request checks by itself; the loop only keeps the index warm.
                try? await Task.sleep(for: interval == .zero ? .seconds(1) : interval)
                do {
                    try await load()
                } catch {
                    logger.error("\(part.rawValue) refresh failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }
}
