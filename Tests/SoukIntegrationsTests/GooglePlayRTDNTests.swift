import Foundation
import SoukCore
import Testing
@testable import SoukIntegrations

/// `GoogleRTDNMessage.parse`: Pub/Sub push envelopes around Play's DeveloperNotification.
@Suite struct GooglePlayRTDNTests {
    static func envelope(_ notification: String, messageId: String? = "136969346945", idKey: String = "messageId",
                         urlSafe: Bool = false) -> [UInt8] {
        var data = Data(notification.utf8).base64EncodedString()
        if urlSafe {
            data = data.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return envelope(data: data, messageId: messageId, idKey: idKey)
    }

    static func envelope(data: String, messageId: String? = "136969346945", idKey: String = "messageId") -> [UInt8] {
        var message: [String: Any] = ["data": data, "publishTime": "2026-11-25T10:00:00.123Z", "attributes": ["k": "v"]]
        if let messageId { message[idKey] = messageId }
        let object: [String: Any] = ["message": message, "subscription": "projects/souk/subscriptions/play-rtdn"]
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    static let eventTime = Date(timeIntervalSince1970: 1_503_349_566.168)

    @Test func subscriptionNotification() throws {
        let body = Self.envelope(#"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1503349566168","subscriptionNotification":{"version":"1.0","notificationType":4,"purchaseToken":"PURCHASE_TOKEN","subscriptionId":"premium.monthly"}}"#)
        let message = try GoogleRTDNMessage.parse(body)
        #expect(message == GoogleRTDNMessage(messageId: "136969346945", subscription: "projects/souk/subscriptions/play-rtdn",
                                             packageName: "com.example.game", eventTime: Self.eventTime,
                                             kind: .subscription(type: 4, typeName: "SUBSCRIPTION_PURCHASED", purchaseToken: "PURCHASE_TOKEN",
                                                                 subscriptionId: "premium.monthly")))
        #expect(message.purchaseToken == "PURCHASE_TOKEN")
        let revoked = try GoogleRTDNMessage.parse(Self.envelope(#"{"packageName":"p","eventTimeMillis":1503349566168,"subscriptionNotification":{"notificationType":12,"purchaseToken":"T"}}"#))
        #expect(revoked.kind == .subscription(type: 12, typeName: "SUBSCRIPTION_REVOKED", purchaseToken: "T", subscriptionId: nil))
        #expect(revoked.eventTime == Self.eventTime)
        let future = try GoogleRTDNMessage.parse(Self.envelope(#"{"packageName":"p","eventTimeMillis":"1","subscriptionNotification":{"notificationType":99,"purchaseToken":"T"}}"#))
        #expect(future.kind == .subscription(type: 99, typeName: "UNKNOWN_99", purchaseToken: "T", subscriptionId: nil))
    }

    @Test func oneTimeProductNotification() throws {
        let message = try GoogleRTDNMessage.parse(Self.envelope(#"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1503349566168","oneTimeProductNotification":{"version":"1.0","notificationType":2,"purchaseToken":"PT","sku":"coins.100"}}"#, urlSafe: true))
        #expect(message.kind == .oneTimeProduct(type: 2, typeName: "ONE_TIME_PRODUCT_CANCELED", purchaseToken: "PT", sku: "coins.100"))
    }

    @Test func voidedPurchaseNotification() throws {
        let message = try GoogleRTDNMessage.parse(Self.envelope(#"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1503349566168","voidedPurchaseNotification":{"purchaseToken":"VT","orderId":"GPA.1234..0","productType":1,"refundType":2}}"#, idKey: "message_id"))
        #expect(message.kind == .voided(purchaseToken: "VT", orderId: "GPA.1234..0", productType: 1, refundType: 2))
        #expect(message.messageId == "136969346945")
    }

    @Test func testNotificationAndNewKinds() throws {
        let test = try GoogleRTDNMessage.parse(Self.envelope(#"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1503349566168","testNotification":{"version":"1.0"}}"#))
        #expect(test.kind == .test && test.purchaseToken == nil)
        let newer = try GoogleRTDNMessage.parse(Self.envelope(#"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1503349566168","pendingRefundReviewNotification":{"purchaseToken":"X"}}"#))
        #expect(newer.kind == .other(field: "pendingRefundReviewNotification"))
    }

    @Test func malformedBodiesSayWhichField() {
        func error(_ body: [UInt8]) -> String? {
            do { _ = try GoogleRTDNMessage.parse(body); return nil } catch { return error.description }
        }
        #expect(error(Array("not json".utf8))?.contains("Pub/Sub push envelope") == true)
        #expect(error(Array(#"{"subscription":"s"}"#.utf8))?.contains("\"message\"") == true)
        #expect(error(Self.envelope(#"{"packageName":"p","eventTimeMillis":"1","testNotification":{}}"#, messageId: nil))?.contains("messageId") == true)
        #expect(error(Self.envelope(data: "%%%not base64%%%"))?.contains("not base64") == true)
        #expect(error(Self.envelope(data: ""))?.contains("\"data\"") == true)
        #expect(error(Self.envelope("plain text, not JSON"))?.contains("DeveloperNotification") == true)
        #expect(error(Self.envelope(#"{"packageName":"p","eventTimeMillis":"1","subscriptionNotification":"nope"}"#))?
            .contains("subscriptionNotification") == true)
        #expect(error(Self.envelope(#"{"eventTimeMillis":"1","testNotification":{}}"#))?.contains("packageName") == true)
        #expect(error(Self.envelope(#"{"packageName":"p","testNotification":{}}"#))?.contains("eventTimeMillis") == true)
        #expect(error(Self.envelope(#"{"packageName":"p","eventTimeMillis":"1"}"#))?.contains("none of") == true)
        #expect(error(Self.envelope(#"{"packageName":"p","eventTimeMillis":"1","subscriptionNotification":{"notificationType":2}}"#))?
            .contains("purchaseToken") == true)
        #expect(error(Self.envelope(#"{"packageName":"p","eventTimeMillis":"1","oneTimeProductNotification":{"notificationType":1,"purchaseToken":"SECRET-T"}}"#))
            .map { $0.contains("sku") && !$0.contains("SECRET-T") } == true)
    }
}
