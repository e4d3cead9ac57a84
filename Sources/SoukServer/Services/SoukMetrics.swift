import Hummingbird
import NIOCore
import Prometheus
import SoukApp
import Synchronization

/// Souk's Prometheus metrics, in a registry of its own (no global bootstrap, so tests and several
/// applications in one process never collide).
public final class SoukMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    let packageBytes: Counter
    /// The in-memory caches' hits, misses and evictions (`souk_cache_*`).
    let caches: CacheMetrics
    /// The registry's metric objects by label set: looking them up in the registry on every
    /// request cost more than the rest of the middleware.
    private let requestCounters = Mutex<[RequestKey: Counter]>([:])
    private let latencyHistograms = Mutex<[String: DurationHistogram]>([:])

    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    static let latencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(10),
    ]

    static var requests: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "souk", subsystem: "http", metricName: "requests", unitName: "total",
        helpText: "HTTP requests answered, by method, route and status") }
    static var latency: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "souk", subsystem: "http", metricName: "request_duration", unitName: "seconds",
        helpText: "Time to produce the response head, by route") }

    public init() {
        packageBytes = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "souk", metricName: "package_bytes_served", unitName: "total",
            helpText: "Bytes of package files written to clients"))
        caches = CacheMetrics(registry: registry)
    }

    /// Records one answered request. `route` is the matched route pattern, never the raw path,
    /// so the label set stays small.
    func record(method: String, route: String, status: Int, duration: Duration) {
        let key = RequestKey(method: method, route: route, status: status)
        let counter = requestCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(descriptor: Self.requests,
                                               labels: [("method", method), ("route", route), ("status", String(status))])
            counters[key] = counter
            return counter
        }
        counter.increment()
        let histogram = latencyHistograms.withLock { histograms in
            if let histogram = histograms[route] { return histogram }
            let histogram = registry.makeDurationHistogram(descriptor: Self.latency, labels: [("route", route)],
                                                           buckets: Self.latencyBuckets)
            histograms[route] = histogram
            return histogram
        }
        histogram.record(duration)
    }

    /// The registry in Prometheus text format.
    func render() -> [UInt8] {
        caches.collect()
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// Counts requests and their latency by route and status.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: SoukMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.record(method: request.method.rawValue, route: context.endpointPath ?? "unmatched",
                       status: response.status.code, duration: ContinuousClock.now - start)
        return response
    }
}

/// A body writer that adds what passes through it to a counter.
struct CountingBodyWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let counter: Counter

    mutating func write(_ buffer: ByteBuffer) async throws {
        try await base.write(buffer)
        counter.increment(by: Int64(buffer.readableBytes))
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
