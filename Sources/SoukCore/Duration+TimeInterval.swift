import Foundation

extension Duration {
    /// The duration in seconds, fractions included, for `Date` arithmetic.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
