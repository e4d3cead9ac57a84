import Foundation
import SQLKit
import SoukCore

/// One exchange rate as stored, with who set it and when.
public struct StoredExchangeRate: Sendable, Equatable {
    public var rate: ExchangeRate
    public var setBy: String
    public var setAt: Date
}

/// The `exchange_rates` table: the operator's rates, one per currency and day (setting the same
/// currency and day again replaces the rate).
public struct ExchangeRateStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// Writes `rate`, replacing a rate of the same currency and day; answers the one it replaced.
    @discardableResult
    public func set(_ rate: ExchangeRate, by actor: String, at now: Date) async throws -> ExchangeRate? {
        try await database.transaction { db in
            let sql = db as! any SQLDatabase
            let old = try await sql.raw("""
                SELECT per_usd_scaled FROM exchange_rates WHERE currency = \(bind: rate.currency) AND effective_from = \(bind: rate.from.description)
                """).first().map { try $0.decode(column: "per_usd_scaled", as: Int64.self) }
            try await sql.raw("""
                INSERT INTO exchange_rates (currency, effective_from, per_usd_scaled, set_by, set_at)
                VALUES (\(bind: rate.currency), \(bind: rate.from.description), \(bind: rate.perUSDScaled), \(bind: actor), \(bind: now))
                ON CONFLICT (currency, effective_from) DO UPDATE SET per_usd_scaled = excluded.per_usd_scaled,
                set_by = excluded.set_by, set_at = excluded.set_at
                """).run()
            return old.map { ExchangeRate(currency: rate.currency, perUSDScaled: $0, from: rate.from) }
        }
    }

    /// Every rate (of one currency when given), by currency, oldest first.
    public func list(currency: String? = nil) async throws -> [StoredExchangeRate] {
        let columns = "SELECT currency, effective_from, per_usd_scaled, set_by, set_at FROM exchange_rates"
        let rows = try await (currency.map { currency in
            database.sql.raw("\(unsafeRaw: columns) WHERE currency = \(bind: currency) ORDER BY effective_from")
        } ?? database.sql.raw("\(unsafeRaw: columns) ORDER BY currency, effective_from")).all()
        return try rows.map { row in
            let day = try row.decode(column: "effective_from", as: String.self)
            return StoredExchangeRate(
                rate: ExchangeRate(currency: try row.decode(column: "currency", as: String.self),
                                   perUSDScaled: try row.decode(column: "per_usd_scaled", as: Int64.self),
                                   from: MetricDay(day) ?? MetricDay(ordinal: 0)),
                setBy: try row.decode(column: "set_by", as: String.self), setAt: try row.decode(column: "set_at", as: Date.self))
        }
    }

    /// A converter into `reportingCurrency` holding every rate.
    public func converter(reportingCurrency: String) async throws -> CurrencyConverter {
        CurrencyConverter(reportingCurrency: reportingCurrency, rates: try await list().map(\.rate))
    }
}
