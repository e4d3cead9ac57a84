import Foundation
import SoukCore
import Testing

/// Days, rates and conversion of metrics (docs/metrics.md, "Exchange rates").
@Suite struct CurrencyConverterTests {
    static func day(_ text: String) -> MetricDay { MetricDay(text)! }

    @Test func daysParseOnlyRealDatesAndPrintBack() {
        #expect(MetricDay("2026-11-01")?.description == "2026-11-01")
        #expect(MetricDay("2028-02-29")?.description == "2028-02-29")
        for bad in ["2026-02-30", "2026-13-01", "2026-1-01", "26-11-01", "2026-11-01T00", "", "２026-11-01"] {
            #expect(MetricDay(bad) == nil, "\(bad)")
        }
        let day = Self.day("2026-11-01")
        #expect(MetricDay(containing: day.end.addingTimeInterval(-0.001)) == day)
        #expect(MetricDay(containing: day.end) == day.adding(days: 1))
        #expect(day.month.description == "2026-11")
    }

    @Test func ratesParseAsHundredMillionthsAndPrintWithoutTrailingZeros() {
        #expect(ExchangeRate.parsePerUSD("0.92") == 92_000_000)
        #expect(ExchangeRate.parsePerUSD("151.25") == 15_125_000_000)
        #expect(ExchangeRate.parsePerUSD("1") == 100_000_000)
        #expect(ExchangeRate.parsePerUSD("0.12345678") == 12_345_678)
        for bad in ["0", "0.0", "-1", "1.", ".5", "0.123456789", "1e3", "abc", "10000001", " 1"] {
            #expect(ExchangeRate.parsePerUSD(bad) == nil, "\(bad)")
        }
        #expect(ExchangeRate(currency: "EUR", perUSDScaled: 92_000_000, from: Self.day("2026-11-01")).perUSDText == "0.92")
        #expect(ExchangeRate(currency: "JPY", perUSDScaled: 15_000_000_000, from: Self.day("2026-11-01")).perUSDText == "150")
    }

    @Test func aRateIsInForceFromItsDayUntilTheNext() throws {
        let converter = CurrencyConverter(reportingCurrency: "USD", rates: [
            ExchangeRate(currency: "EUR", perUSDScaled: 90_000_000, from: Self.day("2026-10-01")),
            ExchangeRate(currency: "EUR", perUSDScaled: 80_000_000, from: Self.day("2026-11-01")),
        ])
        #expect(converter.perUSD("EUR", on: Self.day("2026-09-30")) == nil)
        #expect(converter.perUSD("EUR", on: Self.day("2026-10-31")) == 90_000_000)
        #expect(converter.perUSD("EUR", on: Self.day("2026-11-01")) == 80_000_000)
        #expect(converter.perUSD("USD", on: Self.day("2000-01-01")) == 100_000_000)
        // 9.00 EUR at 0.90 is 10.00 USD; at 0.80, 11.25 USD.
        #expect(try converter.convert(900, "EUR", on: Self.day("2026-10-15")).get() == 1000)
        #expect(try converter.convert(900, "EUR", on: Self.day("2026-11-15")).get() == 1125)
        #expect(try converter.convert(499, "USD", on: Self.day("2000-01-01")).get() == 499)
    }

    @Test func minorUnitsFollowEachCurrencysDigits() throws {
        let converter = CurrencyConverter(reportingCurrency: "EUR", rates: [
            ExchangeRate(currency: "EUR", perUSDScaled: 92_000_000, from: Self.day("2026-11-01")),
            ExchangeRate(currency: "JPY", perUSDScaled: 15_000_000_000, from: Self.day("2026-11-01")),
        ])
        // ¥1500 is 10 USD is 9.20 EUR (920 cents); 5.00 USD is 4.60 EUR.
        #expect(try converter.convert(1500, "JPY", on: Self.day("2026-11-02")).get() == 920)
        #expect(try converter.convert(500, "USD", on: Self.day("2026-11-02")).get() == 460)
    }

    @Test func missingRatesAreNamedNotGuessed() {
        let converter = CurrencyConverter(reportingCurrency: "EUR", rates: [
            ExchangeRate(currency: "EUR", perUSDScaled: 92_000_000, from: Self.day("2026-11-01")),
        ])
        guard case .failure(let missing) = converter.convert(100, "GBP", on: Self.day("2026-10-15")) else {
            Issue.record("converted without rates")
            return
        }
        #expect(missing.rates == [MissingRate(currency: "EUR", day: Self.day("2026-10-15")),
                                  MissingRate(currency: "GBP", day: Self.day("2026-10-15"))])
        var merged = missing
        merged.merge([MissingRate(currency: "GBP", day: Self.day("2026-10-01")), MissingRate(currency: "GBP", day: Self.day("2026-10-20"))])
        #expect(merged.rates.map(\.day.description) == ["2026-10-15", "2026-10-01"])
        #expect(merged.description.contains("EUR on 2026-10-15, GBP on 2026-10-01"))
        #expect(merged.description.contains("souk rates set"))
    }

    @Test func sumsRoundOnceHalvesAwayFromZero() {
        #expect(CurrencyConverter.rounded(Decimal(string: "2.5")!) == 3)
        #expect(CurrencyConverter.rounded(Decimal(string: "2.4999")!) == 2)
        #expect(CurrencyConverter.rounded(Decimal(string: "-2.5")!) == -3)
        #expect(CurrencyConverter.rounded(Decimal(string: "-2.4")!) == -2)
        // Three 1.00 EUR at 0.92 are 3 × 108.695… cents: 326 rounded once, 327 rounded each.
        let converter = CurrencyConverter(reportingCurrency: "USD", rates: [
            ExchangeRate(currency: "EUR", perUSDScaled: 92_000_000, from: Self.day("2026-11-01")),
        ])
        let one = (try? converter.convert(100, "EUR", on: Self.day("2026-11-02")).get()) ?? 0
        #expect(CurrencyConverter.rounded(one + one + one) == 326)
    }
}
