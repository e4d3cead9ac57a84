import Prometheus

/// `souk_scheduled_exports_total{outcome="written"|"failed"}` on `/metrics`: one count per
/// organisation, app and day tried, so a failing export shows as a growing `failed`.
package final class ScheduledExportMetrics: Sendable {
    let written: Counter
    let failed: Counter

    package init(registry: PrometheusCollectorRegistry) {
        let descriptor = MetricNameDescriptor(namespace: "souk", metricName: "scheduled_exports", unitName: "total",
                                              helpText: "Days of an organisation's app the scheduled exports tried, by outcome")
        written = registry.makeCounter(descriptor: descriptor, labels: [("outcome", "written")])
        failed = registry.makeCounter(descriptor: descriptor, labels: [("outcome", "failed")])
    }
}
