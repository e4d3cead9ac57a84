import Foundation

/// The `Message` of an Amazon Appstore Real-Time Notification (Amazon's "Real-Time Notifications"
/// reference and examples): which receipt changed, for which app and user, and the kind
/// (`SUBSCRIPTION_PURCHASED`, `SUBSCRIPTION_RENEWED`, `SUBSCRIPTION_CANCELLED`, `ENTITLEMENT_PURCHASED`,
/// `CONSUMABLE_PURCHASED`, … kept raw: Amazon adds kinds). It is only a hint: what changed is read
/// again from RVS.
public struct AmazonRealTimeNotification: Sendable, Equatable {
    public var appPackageName: String?
    public var appUserId: String?
    public var receiptId: String
    public var notificationType: String
    /// `timestamp` (epoch milliseconds), when given.
    public var timestamp: Date?
    /// Live App Testing purchases carry `betaProductTransaction: true`.
    public var betaProductTransaction: Bool

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ message: String) throws(ParseError) -> AmazonRealTimeNotification {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(message.utf8))) as? [String: Any] else {
            throw ParseError(description: "The SNS Message is not a Real-Time Notification (a JSON object).")
        }
        guard let receiptId = object["receiptId"] as? String, !receiptId.isEmpty,
              let type = object["notificationType"] as? String, !type.isEmpty else {
            throw ParseError(description: "The Real-Time Notification has no receiptId or notificationType.")
        }
        let millis = (object["timestamp"] as? NSNumber)?.doubleValue ?? (object["timestamp"] as? String).flatMap(Double.init)
        return AmazonRealTimeNotification(appPackageName: object["appPackageName"] as? String, appUserId: object["appUserId"] as? String,
                                          receiptId: receiptId, notificationType: type,
                                          timestamp: millis.map { Date(timeIntervalSince1970: $0 / 1000) },
                                          betaProductTransaction: (object["betaProductTransaction"] as? NSNumber)?.boolValue ?? false)
    }
}
