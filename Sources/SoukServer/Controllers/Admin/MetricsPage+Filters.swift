import Foundation
import SoukApp
import SoukCore

/// The filters of the metrics page (docs/metrics.md, "Filters"): a store, a product (the app's that
/// have numbers in the rollup) or a country (where known), and the environment, as plain `<select>`s
/// of the GET form — no script — each showing the value asked for as chosen.
extension MetricsPage {
    static let storeLabels: [String: String] = [
        "apple_store": "App Store", "google_play": "Google Play", "amazon": "Amazon Appstore", "roku": "Roku",
        "marketplace": "The marketplace's checkout",
    ]

    /// The form's filter fields. A product or country asked for that the rollup has no numbers of
    /// stays chosen (its numbers are zero), so the page says what it shows.
    static func setFilters(_ form: Form, products: [String], countries: [String], in values: inout Values) {
        func options(_ values: [String], chosen: String?, label: (String) -> String) -> [Option] {
            var values = values
            if let chosen, !values.contains(chosen) { values.append(chosen) }
            return values.map { Option(value: $0, label: label($0), selected: $0 == chosen) }
        }
        let country = form.filter.scope.country == MetricScope.every ? nil : form.filter.scope.country
        values.stores = options(MetricsFilter.stores, chosen: form.store) { storeLabels[$0] ?? $0 }
        values.products = options(products, chosen: form.product) { $0 }
        values.countries = options(countries, chosen: country ?? form.country) { $0 }
        values.environments = [("production", "Production"), ("sandbox", "Sandbox")].map { name, label in
            Option(value: name, label: label, selected: (name == "sandbox") == form.filter.sandbox)
        }
    }

    /// What the chart's title adds for a filter: ` (country DE, sandbox)`; nothing when unfiltered.
    static func filterTitle(_ query: MetricsQuery) -> String {
        var parts: [String] = []
        if query.scope != .all { parts.append(query.scope.description) }
        if query.sandbox { parts.append("sandbox") }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}
