import Foundation

/// What an app costs: free, paid (a one-time purchase in one or more
/// currencies), included with an entitlement of the marketplace's own catalog (a membership), or
/// paid *and* included — either opens it.
public struct AppPricing: Sendable, Hashable {
    /// In the operator's order: checkout charges the buyer's currency when listed, else the first.
    public var prices: [Price]
    /// An entitlement id of the marketplace catalog (`"app": "marketplace"`) that opens the app.
    public var requiresEntitlement: String?

    public init(prices: [Price] = [], requiresEntitlement: String? = nil) {
        self.prices = prices
        self.requiresEntitlement = requiresEntitlement
    }

    public static let free = AppPricing()

    /// The commerce catalog id of the marketplace's own products (membership plans).
    public static let marketplaceApp = "marketplace"

    /// Anyone may have it without paying.
    public var isFree: Bool { prices.isEmpty && requiresEntitlement == nil }

    /// The price charged to a buyer asking for `currency` (case-insensitive): that currency's, else the first.
    public func price(in currency: String?) -> Price? {
        if let currency, let match = prices.first(where: { $0.currency == currency.uppercased() }) { return match }
        return prices.first
    }

    /// Checks a price list as `souk apps set-price` reads it: ISO 4217 codes, positive whole minor
    /// units, each currency once. Returns the first problem, or nil.
    public static func problem(in prices: [Price]) -> String? {
        var seen: Set<String> = []
        for price in prices {
            guard ISO4217.isCurrency(price.currency) else { return "\(price.currency) is not an ISO 4217 currency code (USD, EUR, JPY …)" }
            guard price.amount > 0 else { return "\(price.amount) \(price.currency): an amount is in minor units and above zero (use --free for a free app)" }
            guard seen.insert(price.currency).inserted else { return "\(price.currency) is given twice" }
        }
        return nil
    }

    /// `prices` as stored (`apps.prices`): `[{"currency":"USD","amount":299}]`.
    public static func encode(_ prices: [Price]) -> String {
        JSONValue.array(prices.map { .object([JSONMember("currency", .string($0.currency)), JSONMember("amount", .number(String($0.amount)))]) })
            .compactText()
    }

    /// A stored price list read back; a value this version cannot read is no price at all.
    public static func decode(_ text: String?) -> [Price] {
        guard let text, case .array(let items)? = try? JSONValue.parse(Array(text.utf8)) else { return [] }
        return items.compactMap { item in
            guard case .string(let currency)? = item["currency"], case .number(let literal)? = item["amount"], let amount = Int(literal) else {
                return nil
            }
            return Price(currency: currency, amount: amount)
        }
    }

    /// How people read it: `free`, `2.99 USD, 2.79 EUR`, `with premium`, `2.99 USD or with premium`.
    public var summary: String {
        let paid = prices.map(\.formatted).joined(separator: ", ")
        switch (paid.isEmpty, requiresEntitlement) {
        case (true, nil): return "free"
        case (true, let entitlement?): return "with \(entitlement)"
        case (false, nil): return paid
        case (false, let entitlement?): return "\(paid) or with \(entitlement)"
        }
    }
}

extension Price {
    /// `2.99 USD` (`500 JPY`): minor units shown with the currency's decimals.
    public var formatted: String {
        let digits = ISO4217.minorDigits(currency)
        guard digits > 0 else { return "\(amount) \(currency)" }
        var divisor = 1
        for _ in 0..<digits { divisor *= 10 }
        let fraction = String(amount % divisor)
        return "\(amount / divisor).\(String(repeating: "0", count: digits - fraction.count))\(fraction) \(currency)"
    }
}
