import Logging
import ServiceLifecycle
import SoukStore

/// Builds the storefront index at start, in the background, so that the first storefront page (and
/// search) of a new process does not build it (`GET /health/ready` answers 503 until it is built,
/// retrying a build that fails); then reads it every `interval`, which starts a refresh from the
/// change log when one is due, so a page after a quiet while does not show an old list.
struct StorefrontIndexWarmer: Service {
    let index: StorefrontIndex
    let interval: Duration
    let readiness: Readiness
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await readiness.warmUp(.storefrontIndex, onFailure: { error in
                logger.error("storefront index build failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
            }) {
                _ = try await index.catalog()
            }
            while !Task.isCancelled {
                try? await Task.sleep(for: interval == .zero ? .seconds(1) : interval)
                do {
                    _ = try await index.catalog()
                } catch {
                    logger.error("storefront index refresh failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }
}
