import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct LoginThrottleTests {
    static let account = SignInThrottleRule.account(email: "ada@example.com")
    static let address = SignInThrottleRule.address("192.0.2.1")

    @Test(arguments: TestBackend.available)
    func anAccountWaitsLongerAfterEachAttemptPastFiveAndIsForgottenAfterAnHour(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let throttle = LoginThrottle(database: store.database, now: { clock.now })
            for attempt in 1...5 { #expect(try await throttle.claim(Self.account) == .allowed(attempts: attempt)) }
            var waits: [Int] = []
            for attempt in 6...17 {
                guard case .refused(let wait) = try await throttle.claim(Self.account) else {
                    Issue.record("attempt \(attempt) was let through at once")
                    return
                }
                waits.append(wait)
                clock.advance(TimeInterval(wait) - 0.5)
                // Refused attempts are not counted and do not push the wait further.
                #expect(try await throttle.claim(Self.account) == .refused(retryAfter: 1))
                clock.advance(0.5)
                #expect(try await throttle.claim(Self.account) == .allowed(attempts: attempt))
            }
            #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900])
            // A stranger holds the account for at most 15 minutes after their last guess; an hour of quiet forgets them.
            clock.advance(3600)
            #expect(try await throttle.claim(Self.account) == .allowed(attempts: 1))
        }
    }

    @Test(arguments: TestBackend.available)
    func anAddressIsClosedUntilItsWindowEndsAndAReleasedAttemptReopensIt(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let throttle = LoginThrottle(database: store.database, now: { clock.now })
            for attempt in 1...20 { #expect(try await throttle.claim(Self.address) == .allowed(attempts: attempt)) }
            #expect(try await throttle.claim(Self.address) == .refused(retryAfter: 900))
            clock.advance(600)
            #expect(try await throttle.claim(Self.address) == .refused(retryAfter: 300))
            // A successful sign-in gives its attempt back.
            try await throttle.release(Self.address)
            #expect(try await throttle.claim(Self.address) == .allowed(attempts: 20))
            #expect(try await throttle.claim(Self.address) == .refused(retryAfter: 300))
            clock.advance(300)
            #expect(try await throttle.claim(Self.address) == .allowed(attempts: 1))
            try await throttle.reset(key: Self.address.key)
            #expect(try await throttle.claim(Self.address) == .allowed(attempts: 1))
        }
    }

    @Test(arguments: TestBackend.available)
    func fiftyConcurrentAttemptsOnOneAccountClaimOnlyFive(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let throttle = LoginThrottle(database: store.database, now: { clock.now })
            let claims = try await withThrowingTaskGroup(of: LoginThrottle.Claim.self) { group in
                for _ in 0..<50 { group.addTask { try await throttle.claim(Self.account) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let allowed = claims.compactMap { if case .allowed(let n) = $0 { n } else { nil } }
            #expect(allowed.sorted() == [1, 2, 3, 4, 5])
            #expect(claims.filter { $0 == .refused(retryAfter: 1) }.count == 45)
        }
    }
}
