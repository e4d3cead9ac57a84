import Foundation
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SoukCore
import SoukIntegrations
@testable import SoukServer
@testable import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// A purchase stays with its buyer (docs/commerce.md, "Transfers" and "Account tokens"): an id alone
/// never moves it, an account token decides whose it is, and id-only look-ups are rate-limited.
@Suite struct PurchaseOwnershipTests {
    typealias F = CommercePurchaseFixture

    /// Runs `body` with an Apple verifier that looks transactions up at a fake App Store Server API
    /// (whose chain is the one `body` signs with), on a fixture under `policy`.
    static func withAppStore(_ backend: TestBackend, policy: TransferPolicy = .transfer,
                             _ body: @escaping @Sendable (F, FakeAppStoreServerAPI, AppleTestChain) async throws -> Void) async throws {
        let chain = try AppleTestChain.make()
        try await F.withAppStoreServerAPI(chain: chain) { fake, apple in
            try await F.with(backend, transferPolicy: policy, verifiers: .init(make: { _ in [apple] })) { fixture in
                try await body(fixture, fake, chain)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aTransactionIdAloneNeverTakesAnotherAccountsPurchase(backend: TestBackend) async throws {
        try await Self.withAppStore(backend) { f, fake, chain in
            let bought = f.transaction("reader.pass.30d")
            fake.add(bought)
            #expect(try await f.post(f.event("reader.pass.30d", bought, receipt: chain.signTransaction(bought)), as: f.alice).status == .created)

            // Bob learnt the id: Apple answers for it, but an id proves nothing of possession.
            let claim = try await f.post(f.event("reader.pass.30d", bought, receipt: ""), as: f.bob)
            #expect(claim.status == .unprocessableContent)
            #expect(try F.problemType(claim) == "urn:souk:problem:owned-by-another-account")
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            #expect(!(try await f.isEntitled(f.bob, to: "premium")))
            #expect(try await f.runtime.purchases.list(app: F.app).allSatisfy { $0.status != .granted || $0.accountId == f.alice.account })
            // Nor does a wrapper around nothing, which the App Store is asked about by id as well.
            for wrapped in [#"{"signedTransaction": ""}"#, #"" ""#] {
                let again = try await f.post(f.event("reader.pass.30d", bought, receipt: wrapped), as: f.bob)
                #expect(again.status == .unprocessableContent && (try? F.problemType(again)) == "urn:souk:problem:owned-by-another-account")
            }
            #expect(try await f.isEntitled(f.alice, to: "premium"))

            // The signed transaction is proof of possession: it moves under the default policy, as before.
            #expect(try await f.post(f.event("reader.pass.30d", bought, receipt: chain.signTransaction(bought)), as: f.bob).status == .created)
            #expect(try await f.isEntitled(f.bob, to: "premium"))
            // And the id alone cannot take it back either.
            #expect(try await f.post(f.event("reader.pass.30d", bought, receipt: ""), as: f.alice).status == .unprocessableContent)
            #expect(!(try await f.isEntitled(f.alice, to: "premium")))
        }
    }

    @Test(arguments: TestBackend.available)
    func accountTokensAreStablePerAccountAndApp(backend: TestBackend) async throws {
        try await F.with(backend) { f in
            func token(_ person: F.Person) async throws -> String {
                let response = try await f.get("account-token", as: person)
                #expect(response.status == .ok && response.headers[.cacheControl] == "private, no-store")
                return try #require(try F.json(response, as: [String: String].self)["accountToken"])
            }
            let alice = try await token(f.alice)
            #expect(UUID(uuidString: alice)?.uuidString.lowercased() == alice)
            #expect(try await token(f.alice) == alice)
            #expect(try await token(f.bob) != alice)
            let customer = try F.json(try await f.get("customer", as: f.alice), as: Customer.self)
            #expect(customer.account.accountToken == alice)
            // Another app gives another token; no token without a sign-in.
            let other = try await f.runtime.accountTokens.token(account: f.alice.account, app: "com.example.other")
            #expect(other.uuidString.lowercased() != alice)
            #expect(try await f.get("account-token", as: nil).status == .unauthorized)
        }
    }

    struct Customer: Decodable {
        struct Account: Decodable { var accountToken: String }
        var account: Account
    }

    @Test(arguments: TestBackend.available)
    func anotherAccountsTokenIsRefusedWhateverThePolicyAndProof(backend: TestBackend) async throws {
        try await F.with(backend, transferPolicy: .transfer) { f in
            let alicesToken = try await f.runtime.accountTokens.token(account: f.alice.account, app: F.app)
            var bought = f.transaction("reader.pass.30d")
            bought.appAccountToken = alicesToken.uuidString.lowercased()
            // Signed data, never recorded before, under the most permissive policy: still Alice's.
            let stolen = try await f.buy("reader.pass.30d", as: f.bob, bought)
            #expect(stolen.status == .unprocessableContent)
            #expect(try F.problemType(stolen) == "urn:souk:problem:owned-by-another-account")
            #expect(!(try await f.isEntitled(f.bob, to: "premium")))
            #expect(try await f.buy("reader.pass.30d", as: f.alice, bought).status == .created)
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            // Spelt in capitals, it is the same token.
            var shouting = f.transaction("reader.pass.30d")
            shouting.appAccountToken = alicesToken.uuidString.uppercased()
            #expect(try await f.buy("reader.pass.30d", as: f.bob, shouting).status == .unprocessableContent)
        }
    }

    @Test(arguments: TestBackend.available)
    func theClaimantsOwnTokenTakesThePurchaseBackEvenUnderKeep(backend: TestBackend) async throws {
        try await F.with(backend, transferPolicy: .keep) { f in
            // A purchase made with a token Souk did not know yet went to Alice (as before tokens).
            let token = UUID()
            var bought = f.transaction("reader.pass.30d")
            bought.appAccountToken = token.uuidString.lowercased()
            #expect(try await f.buy("reader.pass.30d", as: f.alice, bought).status == .created)
            // The token is Bob's: the purchase is his, whatever the policy.
            try await f.runtime.database.sql.raw("""
                INSERT INTO account_tokens (account_id, app, token, created_at)
                VALUES (\(bind: f.bob.account), \(bind: F.app), \(bind: token.uuidString.lowercased()), \(bind: Date()))
                """).run()
            #expect(try await f.buy("reader.pass.30d", as: f.bob, bought).status == .created)
            #expect(try await f.isEntitled(f.bob, to: "premium"))
            #expect(!(try await f.isEntitled(f.alice, to: "premium")))
            let events = try await CommerceEventStore(database: f.runtime.database).list(account: f.bob.account, app: F.app, limit: 10)
            #expect(events.contains { $0.type == .transfer })
            // Alice presenting it again is refused: it carries Bob's token.
            #expect(try await f.buy("reader.pass.30d", as: f.alice, bought).status == .unprocessableContent)
            #expect(try await f.isEntitled(f.bob, to: "premium"))
        }
    }

    /// A Roku store that refuses every id and counts the calls.
    final class CountingRoku: StoreVerifier {
        let store = CommerceStore.roku
        private let calls = Mutex(0)
        var count: Int { calls.withLock { $0 } }

        func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
            calls.withLock { $0 += 1 }
            return .refused(.invalidReceipt("Roku does not know this transaction."))
        }
    }

    @Test(arguments: TestBackend.available)
    func lookUpsByIdAloneAreLimitedPerAccount(backend: TestBackend) async throws {
        let roku = CountingRoku()
        try await F.with(backend, verifiers: .init(make: { apple in [apple, roku] })) { f in
            func rokuEvent(_ id: String) -> [String: Any] {
                var event = f.event("reader.monthly", f.transaction("reader.monthly"))
                var data = event["data"] as! [String: Any]
                data["store"] = "roku"
                data["platform"] = "roku"
                data["transaction"] = ["storeProductId": "reader-monthly", "transactionId": id]
                event["data"] = data
                return event
            }
            for index in 0..<30 {
                #expect(try await f.post(rokuEvent("guess-\(index)"), as: f.bob).status == .unprocessableContent)
            }
            let limited = try await f.post(rokuEvent("guess-30"), as: f.bob)
            #expect(limited.status == .tooManyRequests)
            #expect(try F.problemType(limited) == "urn:souk:problem:too-many-lookups")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 3000)
            #expect(roku.count == 30)
            // Another account has its own count; signed purchases are never limited.
            #expect(try await f.post(rokuEvent("guess-31"), as: f.alice).status == .unprocessableContent)
            #expect(try await f.buy("reader.pass.30d", as: f.bob).status == .created)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRestoreTakesAtMostAHundredCompactJWSAndAsksNoStoreOtherwise(backend: TestBackend) async throws {
        let roku = CountingRoku()
        let counting = Box<FlakyVerifier>()
        try await F.with(backend, verifiers: .init(make: { apple in
            let flaky = FlakyVerifier(apple, failures: 0)
            counting.value = flaky
            return [flaky, roku]
        })) { f in
            let good = f.chain.signTransaction(f.transaction("reader.pass.30d"))
            for (entries, index) in [([""], 0), ([good, "not a jws"], 1), ([good, "a.b"], 1), ([good, "a.b.c.d"], 1), ([good, "a..c"], 1),
                                     ([good, "{\"signedTransaction\": \"\(good)\"}"], 1)] {
                let response = try await f.postJSON("restore", ["signedTransactions": entries], as: f.alice)
                #expect(response.status == .badRequest)
                let problem = try F.json(response, as: F.ProblemBody.self)
                #expect(problem.type == "urn:souk:problem:malformed-restore" && problem.detail.contains("signedTransactions[\(index)]"))
            }
            let tooMany = try await f.postJSON("restore", ["signedTransactions": Array(repeating: good, count: 101)], as: f.alice)
            #expect(tooMany.status == .badRequest)
            #expect(counting.value?.callCount == 0)
            #expect(!(try await f.isEntitled(f.alice, to: "premium")))
            #expect(try await f.postJSON("restore", ["signedTransactions": [good]], as: f.alice).status == .ok)
            #expect(try await f.isEntitled(f.alice, to: "premium"))
        }
    }

    @Test(arguments: TestBackend.available)
    func anAppWhoseBundleIdDiffersFromItsIdAcceptsItsOwnPurchases(backend: TestBackend) async throws {
        var catalog = CommerceCatalogSamples.reader
        catalog.stores = CommerceStoreSettings(apple: AppleStoreSettings(bundleId: "com.example.reader.ios"))
        try await F.with(backend, catalog: catalog) { f in
            let ours = f.transaction("reader.pass.30d", bundleId: "com.example.reader.ios")
            #expect(try await f.buy("reader.pass.30d", as: f.alice, ours).status == .created)
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            // Signed for the app id, which is not this app's bundle id: another app's purchase.
            let theirs = try await f.buy("reader.pass.30d", as: f.bob, f.transaction("reader.pass.30d", bundleId: F.app))
            #expect(theirs.status == .unprocessableContent)
            #expect(!(try await f.isEntitled(f.bob, to: "premium")))
        }
    }
}
