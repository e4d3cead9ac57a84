import Foundation

/// How many units of a currency one US dollar buys from a day on, as the operator set it
/// (`souk rates set`; docs/metrics.md, "Exchange rates"). The rate is kept as an integer of
/// hundred-millionths (`0.92` is 92_000_000), so no floating point touches money.
public struct ExchangeRate: Sendable, Hashable {
    /// Hundred-millionths: the scale of `perUSDScaled`.
    public static let scale: Int64 = 100_000_000

    public var currency: String
    public var perUSDScaled: Int64
    public var from: MetricDay

    public init(currency: String, perUSDScaled: Int64, from: MetricDay) {
        self.currency = currency
        self.perUSDScaled = perUSDScaled
        self.from = from
    }

    /// Parses a positive decimal such as `0.92` or `151.25` (at most eight fraction digits, at most
    /// 10,000,000) into hundred-millionths; nil for anything else.
    public static func parsePerUSD(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 8,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }), let whole = Int64(parts[0]) else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 8, parts.count == 1 || !fraction.isEmpty else { return nil }
        let padded = fraction + String(repeating: "0", count: 8 - fraction.count)
        guard let part = Int64(padded) else { return nil }
        let value = whole * scale + part
        return value > 0 && value <= 10_000_000 * scale ? value : nil
    }

    /// The rate as a decimal string without trailing zeros (`0.92`, `151.25`, `1`).
    public var perUSDText: String {
        let whole = perUSDScaled / Self.scale
        var fraction = String(perUSDScaled % Self.scale)
        fraction = String(repeating: "0", count: 8 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole)" : "\(whole).\(fraction)"
    }
}
