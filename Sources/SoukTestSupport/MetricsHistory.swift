import Foundation
import SoukCore

/// A known history of one app for metrics tests (docs/metrics.md): trials (one converting, one
/// not), renewals, an upgrade, a billing retry that recovers and one that churns, a voluntary end,
/// partial and full refunds, a one-time purchase, two currencies (USD and EUR) and sandbox noise.
/// The expected numbers are worked out by hand in `MetricsHistory.expected`.
public enum MetricsHistory {
    public static let app = "com.example.reader"

    /// `2026-11-05T10:00:00Z` → the date.
    public static func at(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text.count == 10 ? text + "T00:00:00Z" : text)!
    }

    static func sub(_ id: String, _ account: String, _ start: String, _ end: String, price: Int64, currency: String = "USD",
                    period: String = "P1M", product: String = "reader.monthly", trial: Bool = false, retry: Bool = false,
                    grace: String? = nil, off: String? = nil, refund: MetricPeriod.Refund? = nil, sandbox: Bool = false,
                    store: String = "apple_store") -> MetricPeriod {
        MetricPeriod(subscription: id, account: account, app: app, store: store, product: product, sandbox: sandbox,
                     start: at(start), end: at(end), isTrial: trial, price: price, currency: currency, billingPeriod: period,
                     endedInBillingRetry: retry, graceUntil: grace.map(at), autoRenewOffAt: off.map(at), refund: refund)
    }

    static func once(_ account: String, _ when: String, price: Int64, currency: String, sandbox: Bool = false) -> MetricPeriod {
        MetricPeriod(subscription: "once-\(account)-\(when)", account: account, app: app, store: "apple_store", product: "reader.book",
                     sandbox: sandbox, kind: .oneTime, start: at(when), end: nil, price: price, currency: currency, billingPeriod: nil)
    }

    /// The history's periods, in the order they happened.
    public static let periods: [MetricPeriod] = [
        // A: a week's trial that converts on 10-08, then renews monthly.
        sub("A", "a1", "2026-10-01", "2026-10-08", price: 0, trial: true),
        sub("A", "a1", "2026-10-08", "2026-11-08", price: 999),
        sub("A", "a1", "2026-11-08", "2026-12-08", price: 999),
        // B: a yearly plan in EUR, partly refunded (10.00 EUR) on 11-10; access stays.
        sub("B", "a2", "2026-10-05", "2027-10-05", price: 4999, currency: "EUR", period: "P1Y", product: "reader.yearly",
            refund: .init(at: at("2026-11-10T12:00:00Z"), amount: 1000, endsAccess: false)),
        once("a2", "2026-11-10T15:00:00Z", price: 299, currency: "EUR"),
        // C: billing retry with grace to 11-16, recovered by the renewal of 11-14.
        sub("C", "a3", "2026-10-10", "2026-11-10", price: 499, retry: true, grace: "2026-11-16"),
        sub("C", "a3", "2026-11-14", "2026-12-14", price: 499),
        // D: billing retry with grace to 11-15 noon, never recovered: churned (billing) on 11-15.
        sub("D", "a4", "2026-10-12", "2026-11-12", price: 499, retry: true, grace: "2026-11-15T12:00:00Z"),
        // H: the same account subscribes again on 11-18: a reactivation.
        sub("H", "a4", "2026-11-18", "2026-12-18", price: 499),
        // E: auto-renew turned off on 11-01, ends 11-20 10:00: churned (voluntary) on 11-20.
        sub("E", "a5", "2026-10-20T10:00:00Z", "2026-11-20T10:00:00Z", price: 999, off: "2026-11-01"),
        // F: bought 11-02, fully refunded 11-05 10:00: churned (refund) on 11-05.
        sub("F", "a6", "2026-11-02T10:00:00Z", "2026-12-02T10:00:00Z", price: 999,
            refund: .init(at: at("2026-11-05T10:00:00Z"), amount: 999, endsAccess: true)),
        // G: basic from 11-01, upgraded to pro on 11-11 09:00 (the upgrade ends the basic period).
        sub("G", "a7", "2026-11-01", "2026-11-11T09:00:00Z", price: 499, product: "reader.basic"),
        sub("G", "a7", "2026-11-11T09:00:00Z", "2026-12-11T09:00:00Z", price: 1499, product: "reader.pro"),
        // K: a trial from 11-03 09:00, auto-renew off 11-05, ends 11-10 09:00: churned (voluntary), never paid.
        sub("K", "a9", "2026-11-03T09:00:00Z", "2026-11-10T09:00:00Z", price: 0, trial: true, off: "2026-11-05"),
        // Sandbox noise: a trial that converts and a one-time purchase, none of which production counts.
        sub("S", "a8", "2026-11-01", "2026-11-04", price: 0, trial: true, sandbox: true),
        sub("S", "a8", "2026-11-04", "2026-12-04", price: 999, sandbox: true),
        once("a8", "2026-11-10T08:00:00Z", price: 5000, currency: "USD", sandbox: true),
    ]

    /// The history in another order: reversed, then every other period moved to the end.
    public static var reordered: [MetricPeriod] {
        let reversed = Array(periods.reversed())
        return reversed.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            + reversed.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    }

    /// The exchange rate of the history: 0.92 EUR per US dollar from 2026-10-01, reporting in USD.
    public static let rates = [ExchangeRate(currency: "EUR", perUSDScaled: 92_000_000, from: MetricDay("2026-10-01")!)]

    /// Chosen days' metrics in USD minor units (production), worked out by hand:
    /// MRR of 11-10 is A 999 + C 499 + D 499 + E 999 + G 499 = 3495 USD, plus B's 4999 EUR ÷ 12 =
    /// 416.583… EUR = 452.807… USD: 3947.807… → 3948. Revenue of 11-10 is the book's 299 EUR = 325.00
    /// USD; its refunds B's 1000 EUR = 1086.956… → 1087 USD; net 325 − 1087 = −762.
    public static let expected: [String: [MetricName: Int64]] = [
        "2026-10-08": [.activeSubscriptions: 2, .activeTrials: 0, .revenue: 999, .newSubscribers: 1, .trialConversions: 1],
        "2026-11-02": [.newSubscribers: 1, .revenue: 999, .activeSubscriptions: 7, .activeTrials: 0],
        "2026-11-03": [.trialStarts: 1, .activeTrials: 1, .activeSubscriptions: 8],
        "2026-11-05": [.activeSubscriptions: 7, .activeTrials: 1, .mrr: 3948, .revenue: 0, .refunds: 999, .netRevenue: -999,
                       .churned: 1, .newSubscribers: 0, .trialStarts: 0, .trialConversions: 0, .reactivations: 0],
        "2026-11-10": [.activeSubscriptions: 6, .activeTrials: 0, .mrr: 3948, .revenue: 325, .refunds: 1087, .netRevenue: -762,
                       .churned: 1, .newSubscribers: 0, .trialStarts: 0, .trialConversions: 0, .reactivations: 0],
        "2026-11-11": [.revenue: 1499, .mrr: 4948, .activeSubscriptions: 6, .churned: 0],
        "2026-11-14": [.revenue: 499, .trialConversions: 0, .activeSubscriptions: 6],
        "2026-11-15": [.activeSubscriptions: 5, .mrr: 4449, .churned: 1, .revenue: 0],
        "2026-11-18": [.activeSubscriptions: 6, .reactivations: 1, .revenue: 499, .newSubscribers: 0],
        "2026-11-20": [.activeSubscriptions: 5, .churned: 1, .mrr: 3949],
    ]

    /// The churn reasons of chosen days.
    public static let churnReasons: [String: ChurnReason] = [
        "2026-11-05": .refund, "2026-11-10": .voluntary, "2026-11-15": .billing, "2026-11-20": .voluntary,
    ]
}
