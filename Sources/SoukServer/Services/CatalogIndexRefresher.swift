import Logging
import ServiceLifecycle
import SoukStore

/// Keeps the catalog index current in a running server: loads it at start, in the background (the
/// port is open meanwhile; `GET /health/ready` answers 503 until it is loaded, retrying a load that
/// fails), and then checks the change log every `interval`, so requests never wait for a refresh and
/// no process lags more than about one interval behind a change.
struct CatalogIndexRefresher: Service {
    let index: CatalogIndex
    let interval: Duration
    let readiness: Readiness
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await readiness.warmUp(.catalogIndex, onFailure: { error in
                logger.error("catalog index load failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
            }) {
                try await index.refresh()
            }
            while !Task.isCancelled {
                // With interval 0 every request checks by itself; the loop only keeps the index warm.
                try? await Task.sleep(for: interval == .zero ? .seconds(1) : interval)
                do {
                    try await index.refresh()
                } catch {
                    logger.error("catalog index refresh failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }
}
