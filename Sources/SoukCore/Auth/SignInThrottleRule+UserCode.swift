/// Typing user codes on `/activate` (RFC 8628 §5.1: user codes are short, so guesses are limited)
/// is throttled like password sign-in, in its own rows: per client address 20 wrong codes per
/// 15 minutes; per signed-in account 5, then doubling waits up to 15 minutes.
extension SignInThrottleRule {
    public static func userCodeAddress(_ client: String) -> Self {
        Self(key: "user-code-address:" + client, freeAttempts: 20, window: 900, backoff: .untilWindowEnds)
    }

    public static func userCodeAccount(_ accountID: String) -> Self {
        Self(key: "user-code-account:" + accountID, freeAttempts: 5, window: 3600, backoff: .doubling(cap: 900))
    }
}
