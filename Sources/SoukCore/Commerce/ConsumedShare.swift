import Foundation

/// How much of one consumable purchase the customer has used, as Apple's Send Consumption
/// Information asks it (`consumptionPercentage`, milliunits of a percent: 100000 is all).
///
/// Souk counts a consumable as one balance per account and product, so a purchase's share is read
/// first in, first out: the units used (`bought - balance`) are taken from the oldest purchase
/// first. Two purchases of 5, a balance of 7: the first is 60 % used (60000), the second none.
public enum ConsumedShare {
    /// - Parameters:
    ///   - quantities: the units of each counted purchase of the product, oldest first.
    ///   - index: the purchase asked about.
    ///   - balance: the units left now.
    public static func milliunits(quantities: [Int], index: Int, balance: Int) -> Int? {
        guard quantities.indices.contains(index), quantities[index] > 0 else { return nil }
        let bought = quantities.reduce(0) { $0 + max(0, $1) }
        var used = max(0, bought - max(0, balance))
        for earlier in quantities[..<index] { used -= min(used, max(0, earlier)) }
        let units = min(used, quantities[index])
        return units * 100_000 / quantities[index]
    }
}
