import Foundation

/// Which of an app's periods a row of the daily rollup counts (docs/metrics.md, "Filters"): every
/// period (`*`, `*`, `*`), one store's, one product's, or one country's (those whose country is
/// known to be it). The rollup keeps exactly these scopes — never a combination such as one store
/// in one country — so a filter of two dimensions at once has no numbers, and says so
/// (`MetricScope(store:product:country:)` is nil) rather than answering a wrong one.
public struct MetricScope: Sendable, Hashable, CustomStringConvertible {
    /// `*`: every store, product or country.
    public static let every = MetricRollupRow.all
    public static let all = MetricScope(uncheckedStore: every, product: every, country: every)

    public let store: String
    public let product: String
    /// ISO 3166-1 alpha-2 (`CountryCode`), or `*`.
    public let country: String

    /// The scope filtering by at most one of the three (nil for a dimension means every value);
    /// nil when more than one is given: the rollup does not keep combinations.
    public init?(store: String? = nil, product: String? = nil, country: String? = nil) {
        guard [store, product, country].compactMap({ $0 }).count <= 1 else { return nil }
        self.init(uncheckedStore: store ?? Self.every, product: product ?? Self.every, country: country ?? Self.every)
    }

    init(uncheckedStore store: String, product: String, country: String) {
        self.store = store
        self.product = product
        self.country = country
    }

    /// Whether a period counts in this scope.
    public func contains(_ period: MetricPeriod) -> Bool {
        (store == Self.every || period.store == store) && (product == Self.every || period.product == product)
            && (country == Self.every || period.country == country)
    }

    public var description: String {
        if store != Self.every { return "store \(store)" }
        if product != Self.every { return "product \(product)" }
        if country != Self.every { return "country \(country)" }
        return "every store, product and country"
    }

    /// Every scope the rollup keeps for `periods`, each with its periods: all of them, each store's,
    /// each product's and each known country's (a period whose country is unknown is in none of the
    /// countries). In a fixed order, so a rebuild writes the same rows.
    public static func rolledUp(_ periods: [MetricPeriod]) -> [(scope: MetricScope, periods: [MetricPeriod])] {
        var scopes: [(scope: MetricScope, periods: [MetricPeriod])] = [(all, periods)]
        for (store, some) in Dictionary(grouping: periods, by: \.store).sorted(by: { $0.key < $1.key }) {
            scopes.append((MetricScope(uncheckedStore: store, product: every, country: every), some))
        }
        for (product, some) in Dictionary(grouping: periods, by: \.product).sorted(by: { $0.key < $1.key }) {
            scopes.append((MetricScope(uncheckedStore: every, product: product, country: every), some))
        }
        let known = periods.filter { $0.country != nil }
        for (country, some) in Dictionary(grouping: known, by: { $0.country ?? every }).sorted(by: { $0.key < $1.key }) {
            scopes.append((MetricScope(uncheckedStore: every, product: every, country: country), some))
        }
        return scopes
    }
}
