import Foundation

/// A Roku Pay push notification (Roku Pay push notifications reference): the transaction's data and
/// a `responseKey` the acknowledgement must echo. Roku sends it without authentication, so nothing
/// in it is believed: only `transactionId` is used, to read the transaction again with
/// `validate-transaction`.
public struct RokuPushNotification: Sendable, Equatable {
    public var transactionId: String
    public var responseKey: String
    /// `Sale`, `Cancellation`, `Refund`, `Credit`, … kept raw (Roku adds kinds).
    public var transactionType: String
    /// When Roku says it happened (`eventDate`), if it says so in a form Souk reads.
    public var eventDate: Date?

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ body: String) throws(ParseError) -> RokuPushNotification {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] else {
            throw ParseError(description: "The body is not a Roku Pay push notification (a JSON object).")
        }
        guard let transactionId = object["transactionId"] as? String, !transactionId.isEmpty,
              let responseKey = object["responseKey"] as? String, !responseKey.isEmpty else {
            throw ParseError(description: "The notification has no transactionId or responseKey.")
        }
        return RokuPushNotification(transactionId: transactionId, responseKey: responseKey,
                                    transactionType: (object["transactionType"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "unknown",
                                    eventDate: (object["eventDate"] as? String).flatMap(RokuDate.parse))
    }
}
