import Crypto
import Foundation
import Hummingbird
import NIOCore
import SoukApp
import SoukCore
import SoukStore

/// `GET /health` (liveness), `GET /health/ready` (readiness) and `GET /metrics` for load balancers,
/// systemd and Prometheus, and `GET /openapi.json`, the OpenAPI 3.1 document of every JSON API
/// (docs/api.md).
struct OperationsController<Context: RequestContext> {
    let database: SoukDatabase
    let metrics: SoukMetrics
    /// When set, `/metrics` answers only `Authorization: Bearer <metricsToken>` (`SOUK_METRICS_TOKEN`).
    let metricsToken: String?
    /// Whether the in-memory indexes are loaded (`/health/ready`).
    let readiness: Readiness

    func addRoutes(to router: Router<Context>) {
        router.get("health", use: health)
        router.head("health", use: health)
        router.get("health/ready", use: ready)
        router.head("health/ready", use: ready)
        router.get("metrics", use: metricsText)
        router.get("openapi.json", use: openAPI)
        router.head("openapi.json", use: openAPI)
    }

    @Sendable func openAPI(_ request: Request, context: Context) async throws -> Response {
        var headers: HTTPFields = [.eTag: OpenAPIDocument.etag, .cacheControl: "public, max-age=300"]
        if FileRequestConditions(ifNoneMatch: request.headers[.ifNoneMatch]).plan(size: 0, etag: OpenAPIDocument.etag, lastModified: 0) == .notModified {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(OpenAPIDocument.bytes.readableBytes)
        return Response(status: .ok, headers: headers,
                        body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: OpenAPIDocument.bytes))
    }

    /// 200 `{"status":"ok"}` when the database answers, 503 otherwise (so a balancer drops the process).
    @Sendable func health(_ request: Request, context: Context) async throws -> Response {
        let ok = await database.ping()
        let body = #"{"status":"\#(ok ? "ok" : "unavailable")","database":"\#(ok ? "ok" : "unreachable")"}"#
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if !ok { headers[.retryAfter] = "5" }
        return Response(
            status: ok ? .ok : .serviceUnavailable,
            headers: headers,
            body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: body))
        )
    }

    /// 200 `{"status":"ready"}` once every in-memory index a request reads is loaded and the database
    /// answers; until then a 503 problem naming what is missing, with `Retry-After`, so that nothing
    /// sends traffic to a process still loading (docs/operations.md). A failed load keeps it 503.
    @Sendable func ready(_ request: Request, context: Context) async throws -> Response {
        let status = readiness.status
        guard status.isReady else {
            let pending = status.pending.map(\.rawValue).joined(separator: ", ")
            throw Problem(.serviceUnavailable, "Not ready: still loading the \(pending).", retryAfter: 2)
        }
        guard await database.ping() else {
            throw Problem(.serviceUnavailable, "Not ready: the database does not answer.", retryAfter: 5)
        }
        let body = #"{"status":"ready"}"#
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// Prometheus text exposition format 0.0.4; with a metrics token, 401 without the right bearer.
    @Sendable func metricsText(_ request: Request, context: Context) async throws -> Response {
        if let metricsToken, !Self.presents(metricsToken, request) {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: #"Bearer realm="metrics""#, .cacheControl: "no-store"])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render()))
        )
    }

    /// Whether the request carries `Authorization: Bearer <token>`, compared in constant time.
    static func presents(_ token: String, _ request: Request) -> Bool {
        guard let header = request.headers[.authorization], header.count > 7,
              header.prefix(7).lowercased() == "bearer " else { return false }
        return ConstantTime.equal(String(header.dropFirst(7)), token)
    }
}

/// The document compiled into the binary from `Sources/SoukServer/Resources/openapi.json`.
enum OpenAPIDocument {
    static let bytes = ByteBuffer(bytes: PackageResources.openapi_json)
    static let etag = "\"" + Digest.hex(SHA256.hash(data: PackageResources.openapi_json).prefix(16)) + "\""
}
