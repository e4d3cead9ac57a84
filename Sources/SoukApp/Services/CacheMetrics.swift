import Prometheus
import SoukStore
import Synchronization

/// Hits, misses, evictions and entries of the in-memory caches, as `souk_cache_*{cache="…"}`.
///
/// The caches count under their own lock (`SegmentedLRU`), which costs nothing on the hot path;
/// each scrape of `/metrics` reads those counts and adds what changed since the last one to the
/// Prometheus counters, so they stay counters (only ever growing) in the exposition.
package final class CacheMetrics: Sendable {
    private struct Watched {
        package var read: @Sendable () -> CacheStatistics
        package var reported: CacheStatistics?
        package var hits: Counter
        package var misses: Counter
        package var evictions: Counter
        package var entries: Gauge
        package var capacity: Gauge
    }

    private let registry: PrometheusCollectorRegistry
    private let watched = Mutex<[String: Watched]>([:])

    package static func descriptor(_ name: String, unit: String = "total", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "souk", subsystem: "cache", metricName: name, unitName: unit, helpText: help)
    }

    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Reports the cache named `name` (`tokens`, `entitlements`) from now on.
    package func watch(_ name: String, _ read: @escaping @Sendable () -> CacheStatistics) {
        let labels = [("cache", name)]
        let entry = Watched(
            read: read, reported: nil,
            hits: registry.makeCounter(descriptor: Self.descriptor("hits", "Lookups answered from memory, by cache"), labels: labels),
            misses: registry.makeCounter(descriptor: Self.descriptor("misses", "Lookups that read the database, by cache"), labels: labels),
            evictions: registry.makeCounter(descriptor: Self.descriptor("evictions", "Least recently used entries dropped to make room, by cache"),
                                            labels: labels),
            entries: registry.makeGauge(descriptor: Self.descriptor("entries", unit: "", "Entries held now, by cache"), labels: labels),
            capacity: registry.makeGauge(descriptor: Self.descriptor("capacity", unit: "", "Most entries held, by cache"), labels: labels))
        watched.withLock { $0[name] = entry }
    }

    /// Brings the counters and gauges up to the caches' counts (before each scrape).
    package func collect() {
        watched.withLock { watched in
            for name in Array(watched.keys) {
                guard var entry = watched[name] else { continue }
                let now = entry.read()
                let before = entry.reported ?? CacheStatistics(entries: 0, capacity: 0, hits: 0, misses: 0, evictions: 0)
                entry.hits.increment(by: Int64(max(0, now.hits - before.hits)))
                entry.misses.increment(by: Int64(max(0, now.misses - before.misses)))
                entry.evictions.increment(by: Int64(max(0, now.evictions - before.evictions)))
                entry.entries.set(Int64(now.entries))
                entry.capacity.set(Int64(now.capacity))
                entry.reported = now
                watched[name] = entry
            }
        }
    }
}
