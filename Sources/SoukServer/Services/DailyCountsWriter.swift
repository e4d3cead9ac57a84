import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import SoukStore

/// Writes the dashboard's counts (`DailyCounts`) every `interval`, and once more at shutdown.
struct DailyCountsWriter: Service {
    let counts: DailyCounts
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await flush()
            }
        }
        await flush()
    }

    private func flush() async {
        do {
            try await counts.flush()
        } catch {
            logger.warning("daily counts not written; trying again later", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

/// Counts license requests, their failures and the licenses issued per day for the dashboard
/// (memory only on the request path; `DailyCountsWriter` stores them).
struct DailyCountsMiddleware<Context: RequestContext>: RouterMiddleware {
    let counts: DailyCounts

    static var licensePath: String { "/marketplace-kit/v1/license" }
    static var renewPath: String { "/marketplace-kit/v1/license/renew" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard request.method == .post, path == Self.licensePath || path == Self.renewPath else {
            return try await next(request, context)
        }
        let now = Date()
        counts.add("license.requests", at: now)
        do {
            let response = try await next(request, context)
            if response.status.code >= 400 {
                counts.add("license.failures", at: now)
            } else if path == Self.licensePath {
                counts.add("license.issued", at: now)
            }
            return response
        } catch {
            counts.add("license.failures", at: now)
            throw error
        }
    }
}
