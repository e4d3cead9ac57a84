import Foundation
import Hummingbird
import NIOCore
import SoukStore

/// `GET /health` and `GET /metrics` for load balancers and Prometheus.
struct OperationsController<Context: RequestContext> {
    let database: SoukDatabase
    let metrics: SoukMetrics

    func addRoutes(to router: Router<Context>) {
        router.get("health", use: health)
        router.head("health", use: health)
        router.get("metrics", use: metricsText)
    }

    /// 200 `{"status":"ok"}` when the database answers, 503 otherwise (so a balancer drops the process).
    @Sendable func health(_ request: Request, context: Context) async throws -> Response {
        let ok = await database.ping()
        let body = #"{"status":"\#(ok ? "ok" : "unavailable")","database":"\#(ok ? "ok" : "unreachable")"}"#
        return Response(
            status: ok ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: body))
        )
    }

    /// Prometheus text exposition format 0.0.4.
    @Sendable func metricsText(_ request: Request, context: Context) async throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render()))
        )
    }
}
