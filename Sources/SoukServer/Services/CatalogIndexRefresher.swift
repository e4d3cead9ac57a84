import Logging
import ServiceLifecycle
import SoukStore

/// Keeps the catalog index current in a running server: loads it at start (so the first request
/// does not pay for it) and then checks the change log every `interval`, so requests never wait
/// for a refresh and no process lags more than about one interval behind a change.
struct CatalogIndexRefresher: Service {
    let index: CatalogIndex
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await index.refresh()
                } catch {
                    logger.error("catalog index refresh failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
                }
                // With interval 0 every request checks by itself; the loop only warms the index.
                try? await Task.sleep(for: interval == .zero ? .seconds(1) : interval)
            }
        }
    }
}
