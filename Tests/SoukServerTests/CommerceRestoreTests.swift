import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/restore` with the StoreKit 2 signed transactions a device holds.
@Suite struct CommerceRestoreTests {
    typealias F = CommercePurchaseFixture

    /// The entitlements after (as `GET entitlements`) and how many were refused (`Souk-Restore-Refused`).
    struct Answer: Equatable {
        var entitlements: [String]
        var refused: Int
    }

    func restore(_ f: F, _ signed: [String], as person: F.Person) async throws -> Answer {
        let response = try await f.postJSON("restore", ["signedTransactions": signed], as: person)
        #expect(response.status == .ok)
        let objects = try F.json(response, as: [[String: String]].self)
        #expect(objects.allSatisfy { $0["type"] == "entitlement" })
        return Answer(entitlements: objects.compactMap { $0["id"] },
                      refused: response.headers[HTTPField.Name("Souk-Restore-Refused")!].flatMap { Int($0) } ?? 0)
    }

    /// A restore where every signed transaction was refused: a 422 problem naming why.
    func refusedRestore(_ f: F, _ signed: [String], as person: F.Person) async throws -> String {
        let response = try await f.postJSON("restore", ["signedTransactions": signed], as: person)
        #expect(response.status == .unprocessableContent)
        #expect(response.headers[.contentType] == "application/problem+json")
        return String(buffer: response.body)
    }

    @Test(arguments: TestBackend.available)
    func restoreReattachesSignedTransactionsOnceAndAnswersTheEntitlementsAfter(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let yearly = f.chain.signTransaction(f.transaction("reader.yearly"))
            let pass = f.chain.signTransaction(f.transaction("reader.pass.30d"))
            let forged = try AppleTestChain.make().signTransaction(f.transaction("reader.monthly"))
            let otherApp = f.chain.signTransaction(f.transaction("reader.monthly", bundleId: "com.example.other"))
            let first = try await restore(f, [yearly, pass, forged, otherApp], as: f.alice)
            #expect(first.entitlements == ["reader.book.1", "reader.monthly", "reader.pass.30d", "reader.yearly"])
            #expect(first.refused == 2)
            // Again: the same payments, nothing new.
            let second = try await restore(f, [yearly, pass], as: f.alice)
            #expect(second == Answer(entitlements: first.entitlements, refused: 0))
            #expect(try await f.runtime.purchases.list(app: F.app).count == 2)
            // Nothing restorable: a problem naming each refusal.
            let problem = try await refusedRestore(f, [forged, otherApp], as: f.alice)
            #expect(problem.contains("[0] invalid-signature") && problem.contains("[1] wrong-app"))
            // An entry that is not a JWS at all is the request's fault: a 400, and nothing is restored
            // (PurchaseOwnershipTests checks no store is asked).
            #expect(try await f.postJSON("restore", ["signedTransactions": [yearly, "not a jws"]], as: f.alice).status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func restoreOnAnotherAccountFollowsTheTransferPolicy(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let transaction = f.transaction("reader.monthly")
            #expect(try await f.buy("reader.monthly", as: f.alice, transaction).status == .created)
            let answer = try await restore(f, [f.chain.signTransaction(transaction)], as: f.bob)
            #expect(answer.entitlements == ["reader.monthly", "reader.pass.30d"])
            #expect(try await f.entitlements(f.alice).isEmpty)
        }
        try await F.with(backend, transferPolicy: .keep) { (f: F) async throws in
            let transaction = f.transaction("reader.monthly")
            #expect(try await f.buy("reader.monthly", as: f.alice, transaction).status == .created)
            let problem = try await refusedRestore(f, [f.chain.signTransaction(transaction)], as: f.bob)
            #expect(problem.contains("owned-by-another-account"))
            #expect(try await f.entitlements(f.alice) == ["reader.monthly", "reader.pass.30d"])
        }
    }

    @Test(arguments: TestBackend.available)
    func restoreWithoutATokenOrWithABadBodyIsRefused(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let none = try await f.client.execute(uri: "/commerce/\(F.app)/restore", method: .post, headers: [.contentType: "application/json"],
                                                  body: ByteBuffer(string: #"{"signedTransactions": []}"#))
            #expect(none.status == .unauthorized)
            #expect(try await f.postJSON("restore", ["signed": []], as: f.alice).status == .badRequest)
            let sandbox = try await refusedRestore(f, [f.chain.signTransaction(f.transaction("reader.monthly"))], as: f.sam)
            #expect(sandbox.contains("wrong-environment"))
        }
    }
}
