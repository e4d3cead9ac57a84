import Foundation
import SoukCore
import SoukStore

/// One password sign-in attempt, shared by the OAuth sign-in page and the website: throttled per
/// client address and per account (SoukCore's `SignInThrottleRule`), timed the same whether or not
/// the account exists.
///
/// The attempt is counted before the password is checked, so parallel requests cannot get more
/// guesses than the rules allow; a successful sign-in gives its attempt back.
package struct PasswordSignIn: Sendable {
    package let people: PeopleDirectory
    package let throttle: LoginThrottle

    package init(people: PeopleDirectory, throttle: LoginThrottle) {
        self.people = people
        self.throttle = throttle
        PasswordHasher.startDummyHash()
    }

    package enum Outcome: Sendable {
        case signedIn(AccountRecord)
        case refused
        case throttled(retryAfter: Int)
    }

    /// - Parameter client: the client's throttling key (`ClientAddressReader`).
    package func attempt(email rawEmail: String, password: String, client: String) async throws -> Outcome {
        let email = AccountRecord.normalize(email: rawEmail)
        let address = SignInThrottleRule.address(client)
        let accountRule = SignInThrottleRule.account(email: email)
        if case .refused(let wait) = try await throttle.claim(address) { return .throttled(retryAfter: wait) }
        if case .refused(let wait) = try await throttle.claim(accountRule) {
            // Not an attempt after all: the address keeps its place.
            try await throttle.release(address)
            return .throttled(retryAfter: wait)
        }
        let credentials = try await people.credentials(email: email)
        let hash = if let credentials { credentials.passwordHash } else { try await PasswordHasher.dummyHash() }
        guard try await PasswordHasher.verify(password, hash: hash), let account = credentials?.account, !account.disabled else {
            return .refused
        }
        try await throttle.reset(key: accountRule.key)
        try await throttle.release(address)
        return .signedIn(account)
    }

    /// A wait in words: "45 seconds", "3 minutes".
    package static func minutes(_ seconds: Int) -> String {
        seconds < 90 ? "\(seconds) second\(seconds == 1 ? "" : "s")" : "\((seconds + 59) / 60) minutes"
    }
}
