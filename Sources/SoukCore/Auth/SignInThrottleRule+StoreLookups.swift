import Foundation

extension SignInThrottleRule {
    /// Store look-ups of a purchase by its id alone (an Apple transaction id without signed data, a
    /// Roku transaction id), per account: 30 an hour, then nothing until the hour is over. Counted
    /// in the same table as sign-in attempts, so every Souk process sees one count.
    public static func storeLookups(account: UUID) -> Self {
        Self(key: "store-lookup:" + account.uuidString.lowercased(), freeAttempts: 30, window: 3600, backoff: .untilWindowEnds)
    }
}
