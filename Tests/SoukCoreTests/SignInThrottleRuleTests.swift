import SoukCore
import Testing

@Suite struct SignInThrottleRuleTests {
    @Test func anAccountWaitsTwiceAsLongAfterEachAttemptPastFiveUpToFifteenMinutes() {
        let rule = SignInThrottleRule.account(email: "ada@example.com")
        #expect(rule.key == "account:ada@example.com")
        #expect((1...4).map(rule.delay(afterAttempts:)) == [0, 0, 0, 0])
        #expect((5...15).map(rule.delay(afterAttempts:)) == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900])
        #expect(rule.delay(afterAttempts: 1000) == 900)
        #expect(rule.growingDelays.map(\.attempts) == Array(5...14))
        #expect(rule.growingDelays.last?.delay == 512)
    }

    @Test func anAddressHasTwentyAttemptsPerWindowAndNoGrowingDelay() {
        let rule = SignInThrottleRule.address("192.0.2.1")
        #expect(rule.key == "address:192.0.2.1")
        #expect(rule.freeAttempts == 20)
        #expect(rule.window == 900)
        #expect(rule.backoff == .untilWindowEnds)
        #expect(rule.growingDelays.isEmpty)
        #expect(rule.delay(afterAttempts: 25) == 0)
    }
}
