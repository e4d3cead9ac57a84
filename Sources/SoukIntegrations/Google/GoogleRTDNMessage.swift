import Foundation

/// Why a Pub/Sub push body is not a Google Play real-time developer notification; names the field.
public struct GoogleRTDNError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One real-time developer notification as Pub/Sub pushes it: the envelope
/// (`{"message": {"data", "messageId", "publishTime", "attributes"}, "subscription"}`) around a base64
/// `DeveloperNotification`. RTDN only says *that* a purchase changed: the purchase is read again from
/// the Android Publisher API. `messageId` is the deduplication key (Pub/Sub delivers at least once).
public struct GoogleRTDNMessage: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `subscriptionNotification`: `type` is Google's number, `typeName` its name
        /// (`SUBSCRIPTION_RENEWED`…, or `UNKNOWN_<n>` for a number Souk does not know yet).
        case subscription(type: Int, typeName: String, purchaseToken: String, subscriptionId: String?)
        /// `oneTimeProductNotification` (1 `ONE_TIME_PRODUCT_PURCHASED`, 2 `ONE_TIME_PRODUCT_CANCELED`).
        case oneTimeProduct(type: Int, typeName: String, purchaseToken: String, sku: String)
        /// `voidedPurchaseNotification`: refunded, charged back or revoked. productType 1 subscription,
        /// 2 one-time; refundType 1 full, 2 quantity-based partial.
        case voided(purchaseToken: String, orderId: String?, productType: Int?, refundType: Int?)
        /// `testNotification` (Play Console's "send test notification").
        case test
        /// A notification kind Google added after this code was written (e.g.
        /// `pendingRefundReviewNotification`): named, not fatal — the worker records and skips it.
        case other(field: String)
    }

    public var messageId: String
    public var subscription: String?
    public var packageName: String
    public var eventTime: Date
    public var kind: Kind

    public init(messageId: String, subscription: String?, packageName: String, eventTime: Date, kind: Kind) {
        self.messageId = messageId
        self.subscription = subscription
        self.packageName = packageName
        self.eventTime = eventTime
        self.kind = kind
    }

    /// The purchase token the notification is about (nil for test and unknown kinds).
    public var purchaseToken: String? {
        switch kind {
        case .subscription(_, _, let token, _), .oneTimeProduct(_, _, let token, _), .voided(let token, _, _, _): token
        case .test, .other: nil
        }
    }

    public static let subscriptionTypeNames: [Int: String] = [
        1: "SUBSCRIPTION_RECOVERED", 2: "SUBSCRIPTION_RENEWED", 3: "SUBSCRIPTION_CANCELED", 4: "SUBSCRIPTION_PURCHASED",
        5: "SUBSCRIPTION_ON_HOLD", 6: "SUBSCRIPTION_IN_GRACE_PERIOD", 7: "SUBSCRIPTION_RESTARTED",
        8: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED", 9: "SUBSCRIPTION_DEFERRED", 10: "SUBSCRIPTION_PAUSED",
        11: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED", 12: "SUBSCRIPTION_REVOKED", 13: "SUBSCRIPTION_EXPIRED",
        17: "SUBSCRIPTION_ITEMS_CHANGED", 18: "SUBSCRIPTION_CANCELLATION_SCHEDULED", 19: "SUBSCRIPTION_PRICE_CHANGE_UPDATED",
        20: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED", 22: "SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED",
    ]
    public static let oneTimeProductTypeNames: [Int: String] = [1: "ONE_TIME_PRODUCT_PURCHASED", 2: "ONE_TIME_PRODUCT_CANCELED"]

    struct Envelope: Decodable {
        struct Message: Decodable {
            var data: String?
            var messageId: String?
            var message_id: String?
        }
        var message: Message?
        var subscription: String?
    }

    struct Notification: Decodable {
        struct Subscription: Decodable {
            var notificationType: Int?
            var purchaseToken: String?
            var subscriptionId: String?
        }
        struct OneTime: Decodable {
            var notificationType: Int?
            var purchaseToken: String?
            var sku: String?
        }
        struct Voided: Decodable {
            var purchaseToken: String?
            var orderId: String?
            var productType: Int?
            var refundType: Int?
        }
        struct Test: Decodable {}

        var packageName: String?
        var eventTimeMillis: Int64?
        var subscriptionNotification: Subscription?
        var oneTimeProductNotification: OneTime?
        var voidedPurchaseNotification: Voided?
        var testNotification: Test?

        enum CodingKeys: String, CodingKey {
            case packageName, eventTimeMillis, subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification, testNotification
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            packageName = try c.decodeIfPresent(String.self, forKey: .packageName)
            eventTimeMillis = c.lenientInt64(.eventTimeMillis)
            subscriptionNotification = try c.decodeIfPresent(Subscription.self, forKey: .subscriptionNotification)
            oneTimeProductNotification = try c.decodeIfPresent(OneTime.self, forKey: .oneTimeProductNotification)
            voidedPurchaseNotification = try c.decodeIfPresent(Voided.self, forKey: .voidedPurchaseNotification)
            testNotification = try c.decodeIfPresent(Test.self, forKey: .testNotification)
        }
    }

    /// Reads a push body. Every error names the field at fault and never quotes the body (it holds
    /// purchase tokens).
    public static func parse(_ body: [UInt8]) throws(GoogleRTDNError) -> GoogleRTDNMessage {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)) else {
            throw GoogleRTDNError("The push body is not a Pub/Sub push envelope (a JSON object with \"message\").")
        }
        guard let message = envelope.message else { throw GoogleRTDNError("The push envelope has no \"message\".") }
        guard let messageId = message.messageId ?? message.message_id, !messageId.isEmpty else {
            throw GoogleRTDNError("The push envelope's message has no \"messageId\".")
        }
        guard let data = message.data, !data.isEmpty else { throw GoogleRTDNError("The push envelope's message has no \"data\".") }
        guard let decoded = base64(data) else { throw GoogleRTDNError("The push message's \"data\" is not base64.") }
        let notification: Notification
        do { notification = try JSONDecoder().decode(Notification.self, from: decoded) } catch {
            throw GoogleRTDNError("The push message's \"data\" is not a DeveloperNotification JSON object (\(field(of: error))).")
        }
        guard let packageName = notification.packageName, !packageName.isEmpty else {
            throw GoogleRTDNError("The DeveloperNotification has no \"packageName\".")
        }
        guard let millis = notification.eventTimeMillis else {
            throw GoogleRTDNError("The DeveloperNotification has no \"eventTimeMillis\".")
        }
        let kind: Kind
        if let sub = notification.subscriptionNotification {
            guard let type = sub.notificationType else { throw GoogleRTDNError("subscriptionNotification has no \"notificationType\".") }
            guard let token = sub.purchaseToken, !token.isEmpty else { throw GoogleRTDNError("subscriptionNotification has no \"purchaseToken\".") }
            kind = .subscription(type: type, typeName: subscriptionTypeNames[type] ?? "UNKNOWN_\(type)", purchaseToken: token,
                                 subscriptionId: sub.subscriptionId.flatMap { $0.isEmpty ? nil : $0 })
        } else if let product = notification.oneTimeProductNotification {
            guard let type = product.notificationType else { throw GoogleRTDNError("oneTimeProductNotification has no \"notificationType\".") }
            guard let token = product.purchaseToken, !token.isEmpty else { throw GoogleRTDNError("oneTimeProductNotification has no \"purchaseToken\".") }
            guard let sku = product.sku, !sku.isEmpty else { throw GoogleRTDNError("oneTimeProductNotification has no \"sku\".") }
            kind = .oneTimeProduct(type: type, typeName: oneTimeProductTypeNames[type] ?? "UNKNOWN_\(type)", purchaseToken: token, sku: sku)
        } else if let voided = notification.voidedPurchaseNotification {
            guard let token = voided.purchaseToken, !token.isEmpty else { throw GoogleRTDNError("voidedPurchaseNotification has no \"purchaseToken\".") }
            kind = .voided(purchaseToken: token, orderId: voided.orderId.flatMap { $0.isEmpty ? nil : $0 }, productType: voided.productType,
                           refundType: voided.refundType)
        } else if notification.testNotification != nil {
            kind = .test
        } else if let other = otherField(decoded) {
            kind = .other(field: other)
        } else {
            throw GoogleRTDNError("The DeveloperNotification has none of subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification, testNotification.")
        }
        return GoogleRTDNMessage(messageId: messageId, subscription: envelope.subscription, packageName: packageName,
                                 eventTime: Date(timeIntervalSince1970: Double(millis) / 1000), kind: kind)
    }

    /// Standard or URL-safe base64, padded or not.
    static func base64(_ text: String) -> Data? {
        var normalized = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalized.count % 4 != 0 { normalized += "=" }
        return Data(base64Encoded: normalized)
    }

    /// The first `…Notification` object member that is not one of the four known ones.
    static func otherField(_ json: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
        return object.keys.sorted().first { $0.hasSuffix("Notification") && object[$0] is [String: Any] }
    }

    /// The JSON path a decoding error is about, without the values.
    static func field(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "malformed JSON" }
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        @unknown default:
            path = []
        }
        let name = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return name.isEmpty ? "malformed JSON" : "field \"\(name)\" has the wrong type"
    }
}
