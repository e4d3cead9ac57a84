import Foundation
import Hummingbird
import Logging

/// One log line per request: method, path, status and duration. Query strings carry people's
/// emails (`login_hint`, `account`) and secrets (`code`, `state`, `token`), so only their parameter
/// names are logged, each value replaced by `…` (`/oauth/authorize?login_hint=…&client_id=…`).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level

    init(_ level: Logger.Level = .info) {
        self.level = level
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context: context, status: response.status.code, since: start)
            return response
        } catch {
            log(request, context: context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - start).components
        // Whole microseconds: `String(format:)` costs more than the rest of a cached update check's logging.
        let microseconds = elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
        context.logger.log(level: level, "Request", metadata: [
            "hb.request.method": .string(request.method.rawValue),
            "hb.request.path": .string(Self.redacted(path: request.uri.path, query: request.uri.query)),
            "hb.response.status": .stringConvertible(status),
            "duration_us": .stringConvertible(microseconds),
        ])
    }

    /// The path, and the query's parameter names with every value replaced by `…`. A password reset
    /// link carries its secret in the path: it is logged as `/reset/…`.
    static func redacted(path rawPath: String, query: String?) -> String {
        let path = rawPath.hasPrefix("/reset/") ? "/reset/…" : rawPath
        guard let query, !query.isEmpty else { return path }
        let names = query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            // A name is the sender's choice too: keep it only when it looks like one.
            let safe = name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.[]".contains($0)) }
            return (safe ? String(name) : "?") + "=…"
        }
        return path + "?" + names.joined(separator: "&")
    }
}
