import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/transactions` (Zapp's payment-provider API) with purchases signed by an Apple-shaped test chain.
@Suite struct CommerceTransactionTests {
    typealias F = CommercePurchaseFixture

    @Test(arguments: TestBackend.available)
    func aPurchaseIsCreatedInBothCloudEventsModes(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let structured = try await f.buy("reader.monthly", as: f.alice)
            #expect(structured.status == .created)
            #expect(structured.headers[.contentType] == "application/vnd.api+json")
            let payment = try F.paymentId(structured)
            #expect(UUID(uuidString: payment) != nil)
            let binary = try await f.buy("reader.pass.30d", as: f.bob, binary: true)
            #expect(binary.status == .created)
            // application/cloudevents+json is structured mode even with stray ce-* headers.
            let event = try JSONSerialization.data(withJSONObject: f.event("reader.coins.100", f.transaction("reader.coins.100")))
            let mixed = try await f.client.execute(uri: "/commerce/\(F.app)/transactions", method: .post,
                                                   headers: [.authorization: "Bearer \(f.bob.token)", .contentType: "application/cloudevents+json",
                                                             HTTPField.Name("ce-specversion")!: "1.0"],
                                                   body: ByteBuffer(bytes: event))
            #expect(mixed.status == .created)
            #expect(try await f.entitlements(f.alice) == ["reader.monthly", "reader.pass.30d"])
            #expect(try await f.isEntitled(f.bob, to: "reader.pass.30d"))
            // The monthly plan grants premium, so every product whose entitlements premium covers opens.
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            #expect(try await f.isEntitled(f.alice, to: "reader.pass.30d"))
            #expect(try await f.isEntitled(f.alice, to: "reader.yearly") == false)
            let paymentId = try #require(UUID(uuidString: payment))
            let stored = try #require(try await f.runtime.purchases.payment(paymentId))
            #expect(stored.environment == .production && stored.status == .granted && stored.accountId == f.alice.account)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDuplicateEventOrTransactionAnswersTheFirstOutcome(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let transaction = f.transaction("reader.coins.100", quantity: 2)
            let event = f.event("reader.coins.100", transaction)
            let first = try F.paymentId(try await f.post(event, as: f.alice))
            let again = try await f.post(event, as: f.alice)
            #expect(again.status == .created)
            #expect(try F.paymentId(again) == first)
            // The same store transaction in a new event, in binary mode.
            let retried = try await f.post(f.event("reader.coins.100", transaction), as: f.alice, binary: true)
            #expect(retried.status == .created)
            #expect(try F.paymentId(retried) == first)
            // The event id of Alice's purchase reused by Bob is refused.
            let stolen = try await f.post(event, as: f.bob)
            #expect(stolen.status == .unprocessableContent)
            #expect(try F.problemType(stolen) == "urn:souk:problem:duplicate-event")
            let balances = try F.json(try await f.get("balances", as: f.alice), as: [String: [[String: AnyCodable]]].self)
            #expect(balances["balances"]?.first?["balance"] == .int(2))
            #expect(try await f.runtime.purchases.list(app: F.app).count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func fiftyConcurrentCopiesGrantOnce(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let transaction = f.transaction("reader.coins.100", quantity: 5)
            let event = try JSONSerialization.data(withJSONObject: f.event("reader.coins.100", transaction))
            let answers = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String).self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let response = try await f.post(structured: event, as: f.alice)
                        return (response.status, try F.paymentId(response))
                    }
                }
                return try await group.reduce(into: [(HTTPResponse.Status, String)]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.0 == .created })
            #expect(Set(answers.map(\.1)).count == 1)
            #expect(try await f.runtime.purchases.list(app: F.app).count == 1)
            #expect(try await f.runtime.purchases.balances(account: f.alice.account, app: F.app).map(\.balance) == [5])
        }
    }

    @Test(arguments: TestBackend.available)
    func purchasesThatDoNotMatchTheCatalogAreRefused(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            // Wrong SKU in the claim, unknown product, a product not sold by Apple.
            let monthly = f.transaction("reader.monthly")
            let wrongSku = try await f.post(f.event("reader.monthly", monthly, sku: "com.example.reader.yearly"), as: f.alice)
            #expect(wrongSku.status == .unprocessableContent)
            #expect(try F.problemType(wrongSku) == "urn:souk:problem:product-mismatch")
            let unknown = try await f.post(f.event("reader.nothing", monthly), as: f.alice)
            #expect(try F.problemType(unknown) == "urn:souk:problem:unknown-product")
            #expect(try F.problemType(try await f.post(f.event("reader.book.1", monthly, sku: "book_1"), as: f.alice))
                    == "urn:souk:problem:product-mismatch")
            // The claim names the monthly plan's SKU, the signed transaction the yearly's.
            let yearly = f.transaction("reader.yearly")
            let signedOther = try await f.post(f.event("reader.monthly", yearly, sku: f.sku("reader.monthly")), as: f.alice)
            #expect(try F.problemType(signedOther) == "urn:souk:problem:product-mismatch")
            // Another app's signed transaction, a bad signature, a receipt that is not a JWS.
            let otherApp = try await f.post(f.event("reader.monthly", f.transaction("reader.monthly", bundleId: "com.example.other")), as: f.alice)
            #expect(try F.problemType(otherApp) == "urn:souk:problem:wrong-app")
            let forged = try AppleTestChain.make()
            let badSignature = try await f.post(f.event("reader.monthly", monthly, receipt: forged.signTransaction(monthly)), as: f.alice)
            #expect(try F.problemType(badSignature) == "urn:souk:problem:invalid-signature")
            #expect(try F.problemType(try await f.post(f.event("reader.monthly", monthly, receipt: "{}"), as: f.alice))
                    == "urn:souk:problem:invalid-receipt")
            // A claimed transaction id that is not the signed one.
            #expect(try F.problemType(try await f.post(f.event("reader.monthly", monthly, claimedTransactionId: "1"), as: f.alice))
                    == "urn:souk:problem:transaction-mismatch")
            #expect(try await f.entitlements(f.alice).isEmpty)
            #expect(try await f.runtime.purchases.list(app: F.app).isEmpty)
            // Another store: no verifier configured yet.
            var google = f.event("reader.book.1", monthly, sku: "book_1")
            google["data"] = (google["data"] as! [String: Any]).merging(["store": "google_play", "platform": "android"]) { $1 }
            #expect(try F.problemType(try await f.post(google, as: f.alice)) == "urn:souk:problem:store-not-configured")
        }
    }

    @Test(arguments: TestBackend.available)
    func malformedEventsAnswer400AndUnknownAppsAnswer404(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            var event = f.event("reader.monthly", f.transaction("reader.monthly"))
            event["specversion"] = "0.3"
            let old = try await f.post(event, as: f.alice)
            #expect(old.status == .badRequest)
            #expect(try F.problemType(old) == "urn:souk:problem:malformed-event")
            event["specversion"] = "1.0"
            event.removeValue(forKey: "id")
            #expect(try await f.post(event, as: f.alice).status == .badRequest)
            let garbage = try await f.client.execute(uri: "/commerce/\(F.app)/transactions", method: .post,
                                                     headers: [.authorization: "Bearer \(f.alice.token)", .contentType: "application/json"],
                                                     body: ByteBuffer(string: "{not json"))
            #expect(garbage.status == .badRequest)
            let nowhere = try await f.client.execute(uri: "/commerce/com.example.nowhere/transactions", method: .post,
                                                     headers: [.authorization: "Bearer \(f.alice.token)"], body: ByteBuffer(string: "{}"))
            #expect(nowhere.status == .notFound)
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutAValidTokenTheSeedsUnauthorizedBodiesAnswer(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let event = f.event("reader.monthly", f.transaction("reader.monthly"))
            let none = try await f.post(event, as: nil)
            #expect(none.status == .unauthorized)
            #expect(String(buffer: none.body) == #"{"status":401,"statusText":"Unauthorized"}"#)
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let bad = try await f.post(event, as: nil, token: "sat_forged")
            #expect(bad.status == .unauthorized)
            #expect(bad.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
            #expect(try await f.isEntitled(f.alice, to: "reader.monthly") == false)
            let entitlement = try await f.get("entitlement/reader.monthly", as: nil)
            #expect(entitlement.status == .unauthorized)
            #expect(String(buffer: entitlement.body) == #"{"status":401,"statusText":"Unauthorized"}"#)
            let purchases = try await f.get("user-purchases", as: nil, token: "nope")
            #expect(purchases.status == .unauthorized)
            #expect(String(buffer: purchases.body) == #"{"error":"Unauthorized","status":401}"#)
            // The token in the query, and in Zapp's ctx.
            _ = try await f.buy("reader.monthly", as: f.alice)
            #expect(try await f.client.execute(uri: "/commerce/\(F.app)/entitlement/premium?access_token=\(f.alice.token)", method: .get).status == .ok)
            let ctx = Data(#"{"access_token":"\#(f.alice.token)","locale":"en"}"#.utf8).base64EncodedString()
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await f.client.execute(uri: "/commerce/\(F.app)/entitlement/premium?ctx=\(ctx)", method: .get).status == .ok)
        }
    }

    @Test(arguments: TestBackend.available)
    func aUsernameNamingAnotherAccountIsRefused(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let transaction = f.transaction("reader.monthly")
            let refused = try await f.post(f.event("reader.monthly", transaction, username: "bob@example.com"), as: f.alice)
            #expect(refused.status == .unprocessableContent)
            #expect(try F.problemType(refused) == "urn:souk:problem:wrong-account")
            let own = try await f.post(f.event("reader.monthly", transaction, username: "Alice@Example.com"), as: f.alice)
            #expect(own.status == .created)
        }
    }

    @Test(arguments: TestBackend.available)
    func anotherAccountPresentingATransactionGetsItUnderTheDefaultTransferPolicy(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let transaction = f.transaction("reader.yearly")
            let first = try F.paymentId(try await f.buy("reader.yearly", as: f.alice, transaction))
            let moved = try await f.buy("reader.yearly", as: f.bob, transaction)
            #expect(moved.status == .created)
            #expect(try F.paymentId(moved) == first)
            #expect(try await f.entitlements(f.alice).isEmpty)
            #expect(try await f.entitlements(f.bob) == ["reader.book.1", "reader.monthly", "reader.pass.30d", "reader.yearly"])
        }
    }

    @Test(arguments: TestBackend.available)
    func theKeepPolicyLeavesATransactionWithItsOwner(backend: TestBackend) async throws {
        try await F.with(backend, transferPolicy: .keep) { (f: F) async throws in
            let transaction = f.transaction("reader.monthly")
            #expect(try await f.buy("reader.monthly", as: f.alice, transaction).status == .created)
            let refused = try await f.buy("reader.monthly", as: f.bob, transaction)
            #expect(refused.status == .unprocessableContent)
            #expect(try F.problemType(refused) == "urn:souk:problem:owned-by-another-account")
            #expect(try await f.entitlements(f.alice) == ["reader.monthly", "reader.pass.30d"])
            #expect(try await f.entitlements(f.bob).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func transferIfInactiveMovesOnlyWhenTheOwnerHasNoActiveSubscription(backend: TestBackend) async throws {
        try await F.with(backend, transferPolicy: .transferIfInactive) { (f: F) async throws in
            let active = f.transaction("reader.monthly")
            #expect(try await f.buy("reader.monthly", as: f.alice, active).status == .created)
            #expect(try F.problemType(try await f.buy("reader.monthly", as: f.bob, active)) == "urn:souk:problem:owned-by-another-account")
            // Bob's own expired subscription moves to Alice, who has... an active one herself, but Bob has none active.
            let expired = f.transaction("reader.yearly", purchased: Date().addingTimeInterval(-400 * 86_400),
                                        expires: Date().addingTimeInterval(-35 * 86_400))
            #expect(try await f.buy("reader.yearly", as: f.bob, expired).status == .created)
            #expect(try await f.buy("reader.yearly", as: f.alice, expired).status == .created)
            #expect(try await f.runtime.purchases.list(account: f.bob.account).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func environmentsFollowTheAccountAndAllowSandbox(backend: TestBackend) async throws {
        var noSandbox = CommerceCatalogSamples.reader
        noSandbox.allowSandbox = false
        try await F.with(backend, catalog: noSandbox) { (f: F) async throws in
            // A sandbox account presenting a Production purchase: 422.
            let production = try await f.buy("reader.monthly", as: f.sam, f.transaction("reader.monthly"))
            #expect(try F.problemType(production) == "urn:souk:problem:wrong-environment")
            // A sandbox account with a sandbox purchase: recorded as Sandbox, seen by the sandbox account only.
            let sandbox = try await f.buy("reader.monthly", as: f.sam, f.transaction("reader.monthly", environment: "Sandbox"))
            #expect(sandbox.status == .created)
            #expect(try await f.isEntitled(f.sam, to: "reader.monthly"))
            // A production account presenting a Sandbox purchase when the app does not allow it: 422.
            let review = try await f.buy("reader.monthly", as: f.alice, f.transaction("reader.monthly", environment: "Sandbox"))
            #expect(try F.problemType(review) == "urn:souk:problem:wrong-environment")
            // Xcode-signed data is never accepted.
            let xcode = try await f.buy("reader.monthly", as: f.alice, f.transaction("reader.monthly", environment: "Xcode"))
            #expect(xcode.status == .unprocessableContent)
        }
    }

    @Test(arguments: TestBackend.available)
    func allowSandboxLetsAProductionAccountPresentASandboxPurchaseRecordedAsSandbox(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let response = try await f.buy("reader.monthly", as: f.alice, f.transaction("reader.monthly", environment: "Sandbox"))
            #expect(response.status == .created)
            let paymentId = try #require(UUID(uuidString: try F.paymentId(response)))
            let stored = try #require(try await f.runtime.purchases.payment(paymentId))
            #expect(stored.environment == .sandbox)
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            // Sandbox data never reaches production-only answers: Bob (production) sees none of Sam's.
            #expect(try await f.buy("reader.yearly", as: f.sam, f.transaction("reader.yearly", environment: "Sandbox")).status == .created)
            #expect(try await f.isEntitled(f.bob, to: "reader.yearly") == false)
        }
    }

    @Test(arguments: TestBackend.available)
    func anExpiredOrRefundedPurchaseIsRecordedAndGrantsNothing(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let expired = f.transaction("reader.monthly", purchased: Date().addingTimeInterval(-40 * 86_400),
                                        expires: Date().addingTimeInterval(-10 * 86_400))
            #expect(try await f.buy("reader.monthly", as: f.alice, expired).status == .created)
            let refunded = f.transaction("reader.yearly", revoked: Date().addingTimeInterval(-1), signed: Date())
            #expect(try await f.buy("reader.yearly", as: f.alice, refunded).status == .created)
            #expect(try await f.entitlements(f.alice).isEmpty)
            #expect(try await f.runtime.purchases.list(account: f.alice.account).count == 2)
            // A later-signed statement of a bought plan revokes it at once.
            let monthly = f.transaction("reader.monthly", signed: Date().addingTimeInterval(-30))
            #expect(try await f.buy("reader.monthly", as: f.alice, monthly).status == .created)
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            var refund = monthly
            refund.revocationDate = Date().addingTimeInterval(-1)
            refund.revocationReason = 0
            refund.signedDate = Date()
            #expect(try await f.buy("reader.monthly", as: f.alice, refund).status == .created)
            #expect(try await f.isEntitled(f.alice, to: "premium") == false)
        }
    }

    @Test(arguments: TestBackend.available)
    func aStoreThatThrowsAnswers202AndTheWorkerGrantsItLater(backend: TestBackend) async throws {
        let flaky = Box<FlakyVerifier>()
        try await F.with(backend, verifiers: .init { apple in
            let verifier = FlakyVerifier(apple, failures: 1)
            flaky.value = verifier
            return [verifier]
        }) { (f: F) async throws in
            let response = try await f.buy("reader.monthly", as: f.alice)
            #expect(response.status == .accepted)
            let payment = try F.paymentId(response)
            let location = try #require(response.headers[.location])
            #expect(location == "https://souk.test/commerce/\(F.app)/entitlement/reader.monthly?payment=\(payment)")
            let path = String(location.dropFirst("https://souk.test".count))
            let answer = try await Self.poll(f, path)
            #expect(answer.status == .ok)
            #expect(try F.json(answer, as: [String: String].self) == ["type": "entitlement", "id": "reader.monthly"])
            #expect(flaky.value!.callCount >= 2)
            let paymentId = try #require(UUID(uuidString: payment))
            let stored = try #require(try await f.runtime.purchases.payment(paymentId))
            #expect(stored.status == .granted)
        }
    }

    @Test(arguments: TestBackend.available)
    func aSlowStoreAnswers202AndARefusalEndsThePollingWith401(backend: TestBackend) async throws {
        try await F.with(backend, verifyTimeoutMilliseconds: 200, verifiers: .init { apple in
            [FlakyVerifier(apple, failures: 1, delay: .seconds(5))]
        }) { (f: F) async throws in
            let forged = try AppleTestChain.make()
            let transaction = f.transaction("reader.monthly")
            let event = f.event("reader.monthly", transaction, receipt: forged.signTransaction(transaction))
            let response = try await f.post(event, as: f.alice)
            #expect(response.status == .accepted)
            // The same event again while pending: the same payment, still 202.
            // (The worker may have refused it already: then the refusal answers.)
            let again = try await f.post(event, as: f.alice)
            if again.status == .accepted {
                #expect(try F.paymentId(again) == (try F.paymentId(response)))
            } else {
                #expect(try F.problemType(again) == "urn:souk:problem:invalid-signature")
            }
            let location = try #require(response.headers[.location])
            let answer = try await Self.poll(f, String(location.dropFirst("https://souk.test".count)))
            #expect(answer.status == .unauthorized)
            #expect(String(buffer: answer.body) == #"{"status":401,"statusText":"Unauthorized"}"#)
            // Once refused, the event answers its refusal.
            #expect(try F.problemType(try await f.post(event, as: f.alice)) == "urn:souk:problem:invalid-signature")
        }
    }

    /// Polls a `Location` every 100 ms while it answers 202 (with `Retry-After`), for at most two
    /// minutes (a loaded machine's workers lag by tens of seconds).
    static func poll(_ f: F, _ path: String) async throws -> TestResponse {
        for _ in 0..<1200 {
            let response = try await f.client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(f.alice.token)"])
            guard response.status == .accepted else { return response }
            #expect(response.headers[.retryAfter] == "2")
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("still pending after 20 s")
        return try await f.client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(f.alice.token)"])
    }
}

/// A JSON value of a test's answer (numbers and strings).
enum AnyCodable: Decodable, Equatable {
    case int(Int)
    case string(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) { self = .int(value) } else { self = .string(try container.decode(String.self)) }
    }
}
