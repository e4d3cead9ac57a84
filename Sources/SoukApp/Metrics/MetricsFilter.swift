import Foundation
import SoukCore

/// The filters of a metric (docs/metrics.md, "Filters"), as the API and the consoles' pages read
/// them: a store, a product or a country (at most one: the rollup keeps each alone, never a
/// combination) and the environment. A malformed value is refused naming its parameter.
package struct MetricsFilter: Sendable, Equatable {
    package var scope: MetricScope
    package var sandbox: Bool

    /// The stores a metric can be filtered by: the four stores' and the marketplace's own checkout.
    package static let stores = CommerceStore.allCases.map(\.rawValue) + ["marketplace"]
    /// The longest product id a filter takes.
    package static let maxProductLength = 200

    package init(scope: MetricScope = .all, sandbox: Bool = false) {
        self.scope = scope
        self.sandbox = sandbox
    }

    /// Reads the four parameters (nil or empty: not filtered; the environment: production). A
    /// country is ISO 3166-1 alpha-2 or alpha-3 in any case, kept as alpha-2.
    package static func parse(store: String?, product: String?, country: String?,
                              environment: String?) throws(DeveloperOperationError) -> MetricsFilter {
        func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        let sandbox: Bool
        switch given(environment) ?? "production" {
        case "production": sandbox = false
        case "sandbox": sandbox = true
        default: throw .badParameter(field: "environment", "must be production or sandbox")
        }
        let store = given(store), product = given(product), countryText = given(country)
        if let store, !stores.contains(store) {
            throw .badParameter(field: "store", "must be one of \(stores.joined(separator: ", "))")
        }
        if let product, product.count > maxProductLength || product.contains(where: \.isNewline) {
            throw .badParameter(field: "product", "must be a product id of at most \(maxProductLength) characters")
        }
        var country: String?
        if let countryText {
            guard countryText.count <= 3, let code = CountryCode.normalized(countryText) else {
                throw .badParameter(field: "country", "must be an ISO 3166-1 country code, alpha-2 (US) or alpha-3 (USA)")
            }
            country = code
        }
        guard let scope = MetricScope(store: store, product: product, country: country) else {
            let named = [("store", store), ("product", product), ("country", country)].filter { $0.1 != nil }.map(\.0)
            throw .badParameter(field: named.last ?? "store", "the rollup keeps one of store, product or country at a time, "
                                + "not a combination (\(named.joined(separator: " and ")) were given): filter by one")
        }
        return MetricsFilter(scope: scope, sandbox: sandbox)
    }
}
