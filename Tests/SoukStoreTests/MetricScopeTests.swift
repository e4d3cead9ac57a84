import Foundation
import SoukCore
import SoukTestSupport
import Testing

/// The rollup's scopes and the country rule (docs/metrics.md, "Filters") over the known history of
/// `MetricsHistory`, its subscriptions given countries: A and B bought in the US, C, D and H in
/// Germany, every other period (the one-time purchase among them) of unknown country.
@Suite struct MetricScopeTests {
    static let countries = ["A": "US", "B": "US", "C": "DE", "D": "DE", "H": "DE"]

    static var periods: [MetricPeriod] {
        MetricsHistory.periods.map { period in
            var period = period
            period.country = countries[period.subscription]
            return period
        }
    }

    static func reported(_ periods: [MetricPeriod], _ day: String) throws -> [MetricName: ReportedMetric] {
        let converter = CurrencyConverter(reportingCurrency: "USD", rates: MetricsHistory.rates)
        let values = try SubscriptionMetrics(periods: periods).day(MetricDay(day)!).reported(with: converter).get()
        return Dictionary(uniqueKeysWithValues: values.map { ($0.metric, $0) })
    }

    @Test func countriesAreKeptAsAlpha2WhateverFormTheStoreGives() {
        #expect(CountryCode.normalized("USA") == "US" && CountryCode.normalized("deu") == "DE" && CountryCode.normalized("de") == "DE")
        #expect(CountryCode.normalized(" FR ") == "FR" && CountryCode.normalized("XKS") == "XK")
        for bad in [nil, "", "XX", "ZZZ", "U", "USAA", "UK", "12"] { #expect(CountryCode.normalized(bad) == nil, "\(bad ?? "nil")") }
        #expect(CountryCode.alpha3ToAlpha2.count == 250 && CountryCode.alpha2.count == 250)
    }

    @Test func aScopeIsOneDimensionAtMostNeverACombination() {
        #expect(MetricScope() == .all && MetricScope(store: nil, product: nil, country: nil) == .all)
        #expect(MetricScope(country: "DE")?.description == "country DE" && MetricScope(store: "roku")?.product == "*")
        #expect(MetricScope(store: "apple_store", country: "DE") == nil && MetricScope(store: "roku", product: "p") == nil)
        #expect(MetricScope(product: "p", country: "US") == nil)
    }

    /// Every scope's rows are the definitions over exactly its periods: a country's are those whose
    /// country is known to be it, so periods of unknown country are in no country but in every other scope.
    @Test func theRollupsScopesAreTheDefinitionsOverTheirPeriods() throws {
        let production = Self.periods.filter { !$0.sandbox }
        let scopes = MetricScope.rolledUp(production)
        #expect(scopes.map { $0.scope.description } == [
            "every store, product and country", "store apple_store", "product reader.basic", "product reader.book",
            "product reader.monthly", "product reader.pro", "product reader.yearly", "country DE", "country US",
        ])
        for (scope, periods) in scopes {
            #expect(periods == production.filter(scope.contains), "\(scope)")
        }
        let germany = production.filter { $0.country == "DE" }, america = production.filter { $0.country == "US" }
        #expect(Set(germany.map(\.subscription)) == ["C", "D", "H"] && Set(america.map(\.subscription)) == ["A", "B"])

        // Germany on 11-15: C renewed on 11-14 (active), D's grace ran out (churned, billing).
        let de15 = try Self.reported(germany, "2026-11-15")
        #expect(de15[.activeSubscriptions]?.value == 1 && de15[.churned]?.breakdown?["billing"] == 1 && de15[.mrr]?.value == 499)
        // On 11-18 D's account comes back with H: a reactivation in Germany, as in the whole.
        let de18 = try Self.reported(germany, "2026-11-18")
        #expect(de18[.activeSubscriptions]?.value == 2 && de18[.reactivations]?.value == 1 && de18[.revenue]?.value == 499)
        #expect(try Self.reported(production, "2026-11-18")[.reactivations]?.value == 1)
        // The US on 11-10: A and B active; B's partial refund is there, the one-time purchase (country unknown) is not.
        let us10 = try Self.reported(america, "2026-11-10"), all10 = try Self.reported(production, "2026-11-10")
        #expect(us10[.activeSubscriptions]?.value == 2 && us10[.revenue]?.value == 0 && us10[.refunds]?.value == all10[.refunds]?.value)
        #expect((all10[.revenue]?.value ?? 0) > 0)
    }
}
