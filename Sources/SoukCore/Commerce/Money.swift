/// An amount of money: integer minor units (cents for USD, yen for JPY) and an ISO 4217 code.
/// Never floating point (conventions §10).
public struct Price: Sendable, Hashable, Codable {
    /// Three upper-case letters, e.g. `USD`.
    public var currency: String
    /// Minor units, never negative.
    public var amount: Int

    public init(currency: String, amount: Int) {
        self.currency = currency
        self.amount = amount
    }
}
