import Foundation

/// Converts minor units of any currency into minor units of the reporting currency at the rates in
/// force on a day (docs/metrics.md, "Exchange rates"): through the US dollar, `amount ÷ per-USD(from)
/// × per-USD(to)`, exactly (Foundation's `Decimal`), so a sum is rounded once, at the end. A rate is
/// in force from its day until the next rate of the same currency; a day before a currency's first
/// rate has none, and the conversion names what is missing instead of guessing.
public struct CurrencyConverter: Sendable {
    public let reportingCurrency: String
    /// Each currency's rates, oldest first.
    private let rates: [String: [ExchangeRate]]

    public init(reportingCurrency: String, rates: [ExchangeRate]) {
        self.reportingCurrency = reportingCurrency
        self.rates = Dictionary(grouping: rates, by: \.currency).mapValues { $0.sorted { $0.from < $1.from } }
    }

    /// The rate of `currency` in force on `day` (hundred-millionths per US dollar); the dollar's is 1.
    public func perUSD(_ currency: String, on day: MetricDay) -> Int64? {
        if currency == "USD" { return ExchangeRate.scale }
        return rates[currency]?.last { $0.from <= day }?.perUSDScaled
    }

    /// `amount` minor units of `currency`, in minor units of the reporting currency on `day`, not
    /// rounded; a missing rate (of either currency) is named.
    public func convert(_ amount: Int64, _ currency: String, on day: MetricDay) -> Result<Decimal, MissingRates> {
        if currency == reportingCurrency { return .success(Decimal(amount)) }
        var missing: [MissingRate] = []
        let source = perUSD(currency, on: day), target = perUSD(reportingCurrency, on: day)
        if source == nil { missing.append(MissingRate(currency: currency, day: day)) }
        if target == nil { missing.append(MissingRate(currency: reportingCurrency, day: day)) }
        guard let source, let target else { return .failure(MissingRates(missing)) }
        let shift = ISO4217.minorDigits(reportingCurrency) - ISO4217.minorDigits(currency)
        var value = Decimal(amount) * Decimal(target) / Decimal(source)
        if shift != 0 { value = value * Self.power(shift) }
        return .success(value)
    }

    /// `value` rounded to a whole number of minor units, halves away from zero (half-up on magnitude,
    /// so a refund rounds as its sale does).
    public static func rounded(_ value: Decimal) -> Int64 {
        var input = value, output = Decimal()
        NSDecimalRound(&output, &input, 0, .plain)
        return NSDecimalNumber(decimal: output).int64Value
    }

    static func power(_ exponent: Int) -> Decimal {
        var result = Decimal(1)
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }
}

/// A currency without a rate in force on a day.
public struct MissingRate: Sendable, Hashable, Comparable {
    public var currency: String
    public var day: MetricDay

    public init(currency: String, day: MetricDay) {
        self.currency = currency
        self.day = day
    }

    public static func < (lhs: MissingRate, rhs: MissingRate) -> Bool {
        (lhs.currency, lhs.day) < (rhs.currency, rhs.day)
    }
}

/// What a conversion lacked: per currency, the first day without a rate. Its description tells the
/// operator the command that fixes it.
public struct MissingRates: Error, Sendable, Hashable, CustomStringConvertible {
    public private(set) var rates: [MissingRate]

    public init(_ rates: [MissingRate] = []) {
        self.rates = []
        merge(rates)
    }

    public var isEmpty: Bool { rates.isEmpty }

    /// Adds what `more` lacked, keeping one entry per currency: its earliest day.
    public mutating func merge(_ more: [MissingRate]) {
        var earliest = Dictionary(rates.map { ($0.currency, $0.day) }, uniquingKeysWith: min)
        for rate in more { earliest[rate.currency] = min(earliest[rate.currency] ?? rate.day, rate.day) }
        rates = earliest.map { MissingRate(currency: $0.key, day: $0.value) }.sorted()
    }

    public var description: String {
        let named = rates.map { "\($0.currency) on \($0.day)" }.joined(separator: ", ")
        return "no exchange rate in force for \(named): set one with `souk rates set --currency C --per-usd R --from YYYY-MM-DD`"
    }
}
