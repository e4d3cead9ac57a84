import Foundation
import Synchronization

/// A clock tests move by hand, for everything that takes a `now: @Sendable () -> Date`.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
