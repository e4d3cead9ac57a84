import Foundation

/// Google's `Money` (Android Publisher v3): `currencyCode`, whole `units` (an int64, written as a
/// JSON string) and `nanos` (billionths of a unit, same sign as `units`).
public struct GoogleMoney: Sendable, Equatable, Decodable {
    public var currencyCode: String?
    public var units: Int64?
    public var nanos: Int64?

    public init(currencyCode: String?, units: Int64?, nanos: Int64? = nil) {
        self.currencyCode = currencyCode
        self.units = units
        self.nanos = nanos
    }

    enum CodingKeys: String, CodingKey {
        case currencyCode, units, nanos
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currencyCode = try? c.decodeIfPresent(String.self, forKey: .currencyCode)
        units = c.lenientInt64(.units)
        nanos = c.lenientInt64(.nanos)
    }

    /// The amount in milli-units of `currencyCode`; nil without a currency, for a negative amount
    /// or one finer than a milli-unit.
    public var milliunits: Int64? {
        guard let code = currencyCode, code.count == 3 else { return nil }
        let units = units ?? 0, nanos = nanos ?? 0
        guard units >= 0, nanos >= 0, nanos % 1_000_000 == 0 else { return nil }
        let (scaled, overflow) = units.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        return scaled + nanos / 1_000_000
    }
}
