import Foundation
import HTTPTypes
import HummingbirdTesting
import SoukCore
import SoukIntegrations
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/roku/notifications`: Roku Pay push notifications, unauthenticated, read
/// again with `validate-transaction` (the fake answers as Roku does: `"status": 0`) before the
/// acknowledgement gives the partner API key away; on both databases.
@Suite struct RokuNotificationTests {
    typealias Push = StorePushFixture
    static let apiKey = HTTPField.Name("ApiKey")!

    /// Alice's monthly plan bought on Roku as transaction T1.
    static func bought(_ push: Push) async throws {
        push.roku.add(transactionId: "T1", fields: Push.rokuSubscription())
        #expect(try await push.buy(store: "roku", platform: "roku", sku: "reader-monthly", transactionId: "T1").status == .created)
        #expect(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly"))
    }

    /// A push as Roku sends it: the transaction's data and a responseKey.
    static func notification(_ transactionId: String, type: String = "Refund", responseKey: String = "abcdabcd6b1649f681a408f1beebabcd") -> String {
        let object: [String: Any] = ["transactionType": type, "transactionId": transactionId, "productCode": "reader-monthly",
                                     "channelId": 123456, "channelName": "Reader", "customerId": "c0ffee", "price": 4.99, "currency": "usd",
                                     "eventDate": FakeRoku.wcfDate(Date()), "responseKey": responseKey]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }

    func validations(_ push: Push) -> Int { push.stores.requests(matching: "/validate-transaction/").count }

    @Test(arguments: TestBackend.available)
    func aConfirmedNotificationIsAcknowledgedWithThisAppsKeyAndApplied(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            try await Self.bought(push)
            // Refunded at Roku: validate-transaction now says so.
            push.roku.add(transactionId: "T1", fields: Push.rokuSubscription(["refundDate": FakeRoku.wcfDate(Date() - 60), "isEntitled": false]))
            let before = validations(push)
            let response = try await push.push("roku", Self.notification("T1"), contentType: "application/json")
            #expect(response.status == .ok)
            #expect(response.headers[Self.apiKey] == Push.rokuKey)
            #expect(String(buffer: response.body) == "abcdabcd6b1649f681a408f1beebabcd")
            #expect(validations(push) == before + 1)
            #expect(!(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly")))
            let stored = try #require(try await push.stored(.roku).first)
            #expect(stored.status == .processed && stored.received.type == "Refund")

            // Roku sends it again: acknowledged again (after asking Roku), applied once.
            let again = try await push.push("roku", Self.notification("T1"), contentType: "application/json")
            #expect(again.status == .ok && again.headers[Self.apiKey] == Push.rokuKey)
            #expect(try await push.stored(.roku).count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func anythingRokuDoesNotConfirmForThisAppIs400WithoutTheKey(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            try await Self.bought(push)
            // Roku knows a transaction of a product that is not this app's.
            push.roku.add(transactionId: "T9", fields: Push.rokuSubscription(["productId": "someone-elses-plan"]))
            for body in [Self.notification("no-such-transaction"), Self.notification("T9"), #"{"transactionId": "T1"}"#, "not json"] {
                let response = try await push.push("roku", body, contentType: "application/json")
                #expect(response.status == .badRequest)
                #expect(response.headers[Self.apiKey] == nil)
                #expect(!String(buffer: response.body).contains(Push.rokuKey))
            }
            #expect(try await push.stored(.roku).isEmpty)
            #expect(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly"))
            // Another app's URL never answers with this app's key.
            let other = try await push.push("roku", Self.notification("T1"), app: "com.example.unknown", contentType: "application/json")
            #expect(other.status == .notFound && other.headers[Self.apiKey] == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRokuOutageOrASlowAnswerIs503WithoutTheKey(backend: TestBackend) async throws {
        // A 15 s deadline: the answer that must arrive in time took over five seconds on a loaded
        // machine; the staged slow answer is later than the deadline by a margin too.
        try await Push.with(backend, rokuDeadline: .seconds(15)) { push in
            try await Self.bought(push)
            push.roku.add(transactionId: "T1", fields: Push.rokuSubscription(["cancelled": true]))
            push.stores.down()
            let down = try await push.push("roku", Self.notification("T1", type: "Cancellation"), contentType: "application/json")
            #expect(down.status == .serviceUnavailable && down.headers[Self.apiKey] == nil)
            push.stores.recover()

            // Slower than the deadline (Roku itself gives up after 10 s): no key, nothing kept.
            push.stores.delayNext(3, by: .seconds(20))
            let slow = try await push.push("roku", Self.notification("T1", type: "Cancellation"), contentType: "application/json")
            #expect(slow.status == .serviceUnavailable && slow.headers[Self.apiKey] == nil)
            #expect(try await push.stored(.roku).isEmpty)
            #expect(try await push.fixture.runtime.purchases.list(app: Push.app).first?.subscriptionState == .active)
            push.stores.recover()

            let ok = try await push.push("roku", Self.notification("T1", type: "Cancellation"), contentType: "application/json")
            #expect(ok.status == .ok && ok.headers[Self.apiKey] == Push.rokuKey)
            #expect(try await push.fixture.runtime.purchases.list(app: Push.app).first?.subscriptionState == .cancelled)
        }
    }
}
