import Foundation
import SoukCore
import SoukStore

/// The operator's exchange rates (docs/metrics.md, "Exchange rates"): only the operator's side sets
/// them (and each change is audited); staff and the operator's side read them. Developers see only
/// the numbers converted with them.
public struct ExchangeRates: Sendable {
    package let store: ExchangeRateStore
    package let audit: AuditLog
    package let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = ExchangeRateStore(database: database)
        self.audit = AuditLog(database: database)
        self.now = now
    }

    /// Sets `currency`'s rate (`perUSD` units a US dollar buys, e.g. `0.92`) from the UTC day `from`
    /// (`YYYY-MM-DD`) on; a rate of the same currency and day is replaced.
    @discardableResult
    public func set(actor: SoukActor, currency: String, perUSD: String, from: String) async throws -> ExchangeRate {
        guard actor.isMarketplaceOperator else {
            throw DeveloperOperationError.notAllowed("Only the marketplace's operators set exchange rates.")
        }
        guard ISO4217.isCurrency(currency) else {
            throw DeveloperOperationError.invalid(field: "currency", "“\(currency)” is not an ISO 4217 code such as EUR")
        }
        guard currency != "USD" else {
            throw DeveloperOperationError.invalid(field: "currency", "rates are per US dollar; USD is always 1")
        }
        guard let scaled = ExchangeRate.parsePerUSD(perUSD) else {
            throw DeveloperOperationError.invalid(field: "per-usd", "“\(perUSD)” is not a positive rate such as 0.92 (at most 8 decimals)")
        }
        guard let day = MetricDay(from) else {
            throw DeveloperOperationError.invalid(field: "from", "“\(from)” is not a day YYYY-MM-DD")
        }
        let rate = ExchangeRate(currency: currency, perUSDScaled: scaled, from: day)
        let replaced = try await store.set(rate, by: actor.auditName, at: now())
        try await audit.record(actor: actor, action: .ratesSet, target: "rate:\(currency)/\(day)",
                               before: replaced.map { ["perUSD": $0.perUSDText] }, after: ["perUSD": rate.perUSDText])
        return rate
    }

    /// Every rate (of one currency when given), by currency, oldest first.
    public func list(actor: SoukActor, currency: String? = nil) async throws -> [StoredExchangeRate] {
        guard actor.developerID == nil else {
            throw DeveloperOperationError.notAllowed("Exchange rates are the marketplace operator's.")
        }
        return try await store.list(currency: currency)
    }
}
