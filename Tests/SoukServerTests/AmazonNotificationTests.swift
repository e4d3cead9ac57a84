import Foundation
import HummingbirdTesting
import SoukCore
import SoukIntegrations
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/amazon/notifications`: Amazon Appstore Real-Time Notifications over SNS,
/// against fakes of SNS (a local RSA certificate) and RVS, on both databases.
@Suite struct AmazonNotificationTests {
    typealias Push = StorePushFixture

    /// Alice's monthly plan bought at Amazon as receipt R1 (user U1).
    static func bought(_ push: Push) async throws {
        push.rvs.add(receiptId: "R1", userId: "U1", fields: Push.amazonSubscription())
        #expect(try await push.buy(store: "amazon", platform: "amazon_fire_tv", sku: "reader.monthly.term", transactionId: "R1", userId: "U1").status == .created)
        #expect(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly"))
    }

    func rvsCalls(_ push: Push) -> Int { push.stores.requests(matching: "/verifyReceiptId/").count }

    @Test(arguments: TestBackend.available)
    func aSignedNotificationIsReReadThroughRVSAndAppliedOnce(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            try await Self.bought(push)
            // Amazon customer service refunds it: RVS now says cancelled, cancelReason 0.
            push.rvs.add(receiptId: "R1", userId: "U1",
                         fields: Push.amazonSubscription(["cancelDate": Push.ms(Date() - 60), "cancelReason": 0, "autoRenewing": false]))
            let before = rvsCalls(push)
            let message = FakeAmazonSNS.realTimeNotification(receiptId: "R1", appUserId: "U1", type: "SUBSCRIPTION_CANCELLED")
            let body = try push.sns.notification(message, messageId: "m-1", certificateBase: push.snsBase)
            let response = try await push.push("amazon", body)
            #expect(response.status == .ok)
            #expect(rvsCalls(push) == before + 1)
            #expect(!(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly")))
            let stored = try #require(try await push.stored(.amazon).first)
            #expect(stored.status == .processed && stored.received.notificationId == "m-1" && stored.received.type == "SUBSCRIPTION_CANCELLED")

            // SNS delivers it again: the same MessageId changes nothing and RVS is not asked.
            #expect(try await push.push("amazon", body).status == .ok)
            #expect(rvsCalls(push) == before + 1)
            #expect(try await push.stored(.amazon).count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func signatureVersion2IsSHA256AndTheCertificateIsFetchedOnce(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            try await Self.bought(push)
            let renewed = Date() + 50 * Push.day
            push.rvs.add(receiptId: "R1", userId: "U1", fields: Push.amazonSubscription(["renewalDate": Push.ms(renewed)]))
            for (index, version) in ["2", "1", "2"].enumerated() {
                let message = FakeAmazonSNS.realTimeNotification(receiptId: "R1", appUserId: "U1", type: "SUBSCRIPTION_RENEWED")
                let body = try push.sns.notification(message, messageId: "v-\(index)", subject: index == 2 ? "Renewed" : nil,
                                                     signatureVersion: version, certificateBase: push.snsBase)
                #expect(try await push.push("amazon", body).status == .ok)
            }
            #expect(push.snsFaults.requests(matching: ".pem").count == 1)
            let purchase = try #require(try await push.fixture.runtime.purchases.list(app: Push.app).first)
            #expect(abs((purchase.expiresDate ?? .distantPast).timeIntervalSince(renewed)) < 1)
            #expect(try await push.stored(.amazon).count == 3)
        }
    }

    @Test(arguments: TestBackend.available)
    func unsignedOrBadlySignedMessagesAre403AndChangeNothing(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            try await Self.bought(push)
            push.rvs.add(receiptId: "R1", userId: "U1",
                         fields: Push.amazonSubscription(["cancelDate": Push.ms(Date() - 60), "cancelReason": 0]))
            let before = rvsCalls(push)
            let message = FakeAmazonSNS.realTimeNotification(receiptId: "R1", appUserId: "U1", type: "SUBSCRIPTION_CANCELLED")
            let good = try push.sns.notification(message, messageId: "m-bad", certificateBase: push.snsBase)
            var object = try #require(try JSONSerialization.jsonObject(with: Data(good.utf8)) as? [String: String])

            var unsigned = object
            unsigned["Signature"] = nil
            var tampered = object
            tampered["Message"] = message.replacingOccurrences(of: "SUBSCRIPTION_CANCELLED", with: "SUBSCRIPTION_PURCHASED")
            var elsewhere = object
            elsewhere["SigningCertURL"] = "https://example.com/SimpleNotificationService-1.pem"
            var notPEM = object
            notPEM["SigningCertURL"] = push.snsBase + "/SimpleNotificationService-1.txt"
            var version3 = object
            version3["SignatureVersion"] = "3"
            // Another key's signature over the same text.
            let other = try FakeAmazonSNS()
            let forged = try #require(try JSONSerialization.jsonObject(with: Data(try other.notification(
                message, messageId: "m-bad", certificateBase: push.snsBase).utf8)) as? [String: String])
            object["Signature"] = forged["Signature"]
            for variant in [unsigned, tampered, elsewhere, notPEM, version3, object] {
                let body = String(decoding: try JSONSerialization.data(withJSONObject: variant), as: UTF8.self)
                let response = try await push.push("amazon", body)
                #expect(response.status == .forbidden)
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            #expect(rvsCalls(push) == before)
            #expect(try await push.stored(.amazon).isEmpty)
            #expect(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly"))
            #expect(try await push.push("amazon", "not json").status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func theDefaultPatternRefusesACertificateOutsideAmazonSNS(backend: TestBackend) async throws {
        try await Push.with(backend, pattern: AmazonSNSVerifier.defaultPattern) { push in
            let message = FakeAmazonSNS.realTimeNotification(receiptId: "R1", appUserId: "U1")
            let response = try await push.push("amazon", try push.sns.notification(message, certificateBase: push.snsBase))
            #expect(response.status == .forbidden)
            #expect(push.snsFaults.requests.isEmpty)
            let confirmation = try push.sns.subscriptionConfirmation(certificateBase: push.snsBase)
            #expect(try await push.push("amazon", confirmation).status == .forbidden)
            #expect(push.snsFaults.requests.isEmpty && push.sns.confirmations.isEmpty)
            #expect(try await push.stored(.amazon).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func aSubscriptionConfirmationIsConfirmedAtItsSubscribeURL(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            let body = try push.sns.subscriptionConfirmation(token: "tok-1", signatureVersion: "2", certificateBase: push.snsBase)
            #expect(try await push.push("amazon", body).status == .ok)
            #expect(push.sns.confirmations == ["tok-1"])
            let stored = try #require(try await push.stored(.amazon).first)
            #expect(stored.status == .processed && stored.received.type == "SubscriptionConfirmation")
            #expect(stored.summary == "subscription to \(push.sns.topicArn) confirmed")

            // A SubscribeURL outside SNS is never fetched, even in a message SNS signed.
            let elsewhere = try push.sns.subscriptionConfirmation(token: "tok-2", certificateBase: push.snsBase,
                                                                 subscribeBase: "https://example.com")
            #expect(try await push.push("amazon", elsewhere).status == .forbidden)
            #expect(push.sns.confirmations == ["tok-1"])
        }
    }

    @Test(arguments: TestBackend.available)
    func anOutageIs503AndTheNotificationIsKeptUntilRVSAnswers(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            try await Self.bought(push)
            push.rvs.add(receiptId: "R1", userId: "U1",
                         fields: Push.amazonSubscription(["cancelDate": Push.ms(Date() - 60), "cancelReason": 0]))
            let message = FakeAmazonSNS.realTimeNotification(receiptId: "R1", appUserId: "U1", type: "SUBSCRIPTION_CANCELLED")
            let body = try push.sns.notification(message, messageId: "m-out", certificateBase: push.snsBase)

            // SNS's certificate cannot be fetched: 503, nothing kept.
            push.snsFaults.down()
            #expect(try await push.push("amazon", body).status == .serviceUnavailable)
            #expect(try await push.stored(.amazon).isEmpty)
            push.snsFaults.recover()

            // RVS is down: 503 (SNS delivers again), kept, nothing changed.
            push.stores.down()
            let response = try await push.push("amazon", body)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] != nil)
            #expect(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly"))
            #expect(try await push.stored(.amazon).first.map { $0.status == .queued || $0.status == .failed } == true)

            // RVS is back: SNS's next delivery (or the worker, whichever comes first) settles it, once.
            push.stores.recover()
            #expect(try await push.push("amazon", body).status == .ok)
            try await eventually("the kept notification is processed") { try await push.stored(.amazon).first?.status == .processed }
            #expect(!(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly")))
            #expect(try await push.stored(.amazon).count == 1)
        }
    }
}
