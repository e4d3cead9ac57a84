import Foundation

/// One Amazon SNS HTTP(S) delivery (the JSON body SNS posts, `Content-Type: text/plain`), as AWS's
/// "Verifying the signatures of Amazon SNS messages" describes it. Amazon Appstore Real-Time
/// Notifications arrive this way; `Message` carries the notification itself.
public struct AmazonSNSMessage: Sendable, Equatable {
    /// `Notification`, `SubscriptionConfirmation` or `UnsubscribeConfirmation` (kept raw).
    public var type: String
    public var messageId: String
    public var topicArn: String
    public var subject: String?
    public var message: String
    public var timestamp: String
    public var token: String?
    public var subscribeURL: String?
    public var signatureVersion: String?
    public var signature: String?
    public var signingCertURL: String?

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the body; the signature fields may be missing (the verifier refuses such a message).
    public static func parse(_ body: String) throws(ParseError) -> AmazonSNSMessage {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] else {
            throw ParseError(description: "The body is not an Amazon SNS message (a JSON object).")
        }
        func text(_ key: String) -> String? { object[key] as? String }
        guard let type = text("Type"), let messageId = text("MessageId"), !messageId.isEmpty, let topicArn = text("TopicArn"),
              let message = text("Message"), let timestamp = text("Timestamp") else {
            throw ParseError(description: "The SNS message lacks Type, MessageId, TopicArn, Message or Timestamp.")
        }
        return AmazonSNSMessage(type: type, messageId: messageId, topicArn: topicArn, subject: text("Subject"), message: message,
                                timestamp: timestamp, token: text("Token"), subscribeURL: text("SubscribeURL"),
                                signatureVersion: text("SignatureVersion"), signature: text("Signature"),
                                signingCertURL: text("SigningCertURL"))
    }

    /// The text SNS signed: for a notification Message, MessageId, Subject (when present), Timestamp,
    /// TopicArn, Type; for a (un)subscribe confirmation Message, MessageId, SubscribeURL, Timestamp,
    /// Token, TopicArn, Type — each as "Key\nValue\n". nil when a field the type needs is missing.
    public var stringToSign: String? {
        var pairs: [(String, String?)]
        switch type {
        case "Notification":
            pairs = [("Message", message), ("MessageId", messageId)]
            if let subject { pairs.append(("Subject", subject)) }
            pairs += [("Timestamp", timestamp), ("TopicArn", topicArn), ("Type", type)]
        case "SubscriptionConfirmation", "UnsubscribeConfirmation":
            pairs = [("Message", message), ("MessageId", messageId), ("SubscribeURL", subscribeURL), ("Timestamp", timestamp),
                     ("Token", token), ("TopicArn", topicArn), ("Type", type)]
        default:
            return nil
        }
        var text = ""
        for (key, value) in pairs {
            guard let value else { return nil }
            text += key + "\n" + value + "\n"
        }
        return text
    }

    /// `Timestamp` (ISO 8601, with milliseconds) as a date.
    public var date: Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timestamp)) ?? (try? Date.ISO8601FormatStyle().parse(timestamp))
    }
}
