import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The current password asked by `/account/password` and `/account/delete` counts against the
/// account's sign-in throttle: once it is used up, 429 and a page saying when to try again.
@Suite struct AccountPasswordThrottleTests {
    @Test(arguments: TestBackend.available)
    func wrongCurrentPasswordsAreThrottledLikeSignIns(_ backend: TestBackend) async throws {
        // The throttle's clock: nothing frees an attempt while the test runs, however slow the machine.
        let clock = TestClock(Date())
        try await ServerFixture.with(backend, now: { clock.now }, prepare: AccountPagesTests.prepare) { client in
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let new = "a brand new password"
            for _ in 0..<5 {
                let wrong = try await AccountPagesTests.post(client, "/account/password", session: session,
                                                             ["current_password": "wrong", "new_password": new, "confirm_password": new])
                #expect(AccountPagesTests.notice(wrong) == "password-wrong")
            }
            // Throttled: even the right password is not checked, and nothing changes.
            let held = try await AccountPagesTests.post(client, "/account/password", session: session,
                                                        ["current_password": OAuthTests.password, "new_password": new, "confirm_password": new])
            #expect(held.status == .tooManyRequests)
            // A second or two: SQLite keeps the next attempt's time a little less exactly than PostgreSQL.
            let wait = try #require(held.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...2).contains(wait))
            #expect(String(buffer: held.body).contains("Try again in \(wait) second"))
            let deletion = try await AccountPagesTests.post(client, "/account/delete", session: session,
                                                            ["password": OAuthTests.password, "confirm": "yes"])
            #expect(deletion.status == .tooManyRequests)
            #expect(try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).status == .ok)
            // The same count as signing in.
            #expect(try await WebAccountTests.webSignIn(client) == nil)

            // Once the wait is over the right password goes through (and forgets the count).
            clock.advance(TimeInterval(wait))
            let changed = try await AccountPagesTests.post(client, "/account/password", session: session,
                                                           ["current_password": OAuthTests.password, "new_password": new, "confirm_password": new])
            #expect(AccountPagesTests.notice(changed) == "password-changed")
        }
    }

    @Test(arguments: TestBackend.available)
    func deletingTheAccountIsThrottledToo(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.with(backend, now: { clock.now }, prepare: AccountPagesTests.prepare) { client in
            let session = try #require(try await WebAccountTests.webSignIn(client))
            for _ in 0..<5 {
                let wrong = try await AccountPagesTests.post(client, "/account/delete", session: session, ["password": "wrong", "confirm": "yes"])
                #expect(AccountPagesTests.notice(wrong) == "password-wrong")
            }
            let held = try await AccountPagesTests.post(client, "/account/delete", session: session, ["password": OAuthTests.password, "confirm": "yes"])
            #expect(held.status == .tooManyRequests)
            #expect(held.headers[.retryAfter] != nil)
            #expect(try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).status == .ok)
        }
    }
}
