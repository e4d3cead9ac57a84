import Foundation
import HummingbirdBcrypt
import NIOPosix
import SoukStore

/// One password sign-in attempt, shared by the OAuth sign-in page and the website: throttled per
/// account and per client address, timed the same whether or not the account exists.
struct PasswordSignIn: Sendable {
    let catalog: CatalogStore
    let throttle: LoginThrottle

    /// Failed sign-ins allowed per window (15 minutes).
    static let accountLimit = 5
    static let addressLimit = 20

    enum Outcome {
        case signedIn(AccountModel)
        case refused
        case throttled(retryAfter: Int)
    }

    func attempt(email rawEmail: String, password: String, address: String) async throws -> Outcome {
        let email = AccountModel.normalize(email: rawEmail)
        let rules = [LoginThrottle.Rule(key: "account:" + email, limit: Self.accountLimit),
                     LoginThrottle.Rule(key: "address:" + address, limit: Self.addressLimit)]
        if let wait = try await throttle.retryAfter(rules) { return .throttled(retryAfter: wait) }
        let account = try await catalog.account(email: email)
        // Verify against a dummy hash when there is no account, so timing says nothing about existence.
        let hash = account?.passwordHash ?? DummyPassword.hash
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
        guard matches, let account, !account.disabled else {
            try await throttle.recordFailure(keys: rules.map(\.key))
            return .refused
        }
        try await throttle.reset(key: "account:" + email)
        return .signedIn(account)
    }

    static func minutes(_ seconds: Int) -> String {
        seconds < 90 ? "\(seconds) seconds" : "\((seconds + 59) / 60) minutes"
    }
}

/// A Bcrypt hash that no password matches, computed once, for sign-ins with an unknown email.
enum DummyPassword {
    static let hash = Bcrypt.hash("souk: no such account \(UUID())", cost: 12)
}
