import _CryptoExtras
import Crypto
import Foundation
import Hummingbird
import Synchronization
import X509

/// Amazon SNS as an HTTP(S) subscription sees it (AWS's "Verifying the signatures of Amazon SNS
/// messages" and "Parsing message formats"): messages signed with an RSA key whose certificate the
/// fake serves at `/SimpleNotificationService-<id>.pem`, SignatureVersion 1 (SHA1withRSA) or 2
/// (SHA256withRSA), and a `SubscribeURL` (`/?Action=ConfirmSubscription&TopicArn=…&Token=…`)
/// answered with SNS's `ConfirmSubscriptionResponse` XML. Each message is built the way SNS builds
/// it; tests then break what they want broken.
public final class FakeAmazonSNS: Sendable {
    public let topicArn: String
    let key: _RSA.Signing.PrivateKey
    public let certificatePEM: String
    let confirmedTokens = Mutex<[String]>([])

    /// `validity`: the certificate's (an expired one is a test's choice).
    public init(topicArn: String = "arn:aws:sns:us-east-1:033616359524:LT0XA",
                validity: ClosedRange<Date> = Date().addingTimeInterval(-86_400)...Date().addingTimeInterval(365 * 86_400)) throws {
        self.topicArn = topicArn
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let name = try DistinguishedName { CommonName("sns.amazonaws.com") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: name, subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(), issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// The `Token`s of the subscriptions confirmed through `SubscribeURL`.
    public var confirmations: [String] { confirmedTokens.withLock { $0 } }

    public static let certificatePath = "/SimpleNotificationService-7506a1e35b36ef5a444dd1a8e7cc3ed8.pem"

    public func routes(_ router: Router<BasicRequestContext>) {
        router.get(RouterPath(stringLiteral: Self.certificatePath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/x-x509-ca-cert"], body: .init(byteBuffer: ByteBuffer(string: self.certificatePEM)))
        }
        router.get("/") { request, _ in
            let query = request.uri.queryParameters
            guard query["Action"] == "ConfirmSubscription", let token = query["Token"].map(String.init) else {
                return Response(status: .badRequest)
            }
            self.confirmedTokens.withLock { $0.append(token) }
            let xml = """
                <ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">
                  <ConfirmSubscriptionResult><SubscriptionArn>\(self.topicArn):2bcfbf39-05c3-41de-beaa-fcfcc21c8f55</SubscriptionArn></ConfirmSubscriptionResult>
                  <ResponseMetadata><RequestId>075ecce8-8dac-11e1-bf80-f781d96e9307</RequestId></ResponseMetadata>
                </ConfirmSubscriptionResponse>
                """
            return Response(status: .ok, headers: [.contentType: "text/xml"], body: .init(byteBuffer: ByteBuffer(string: xml)))
        }
    }

    /// A signed `Notification` carrying `message` (a Real-Time Notification's JSON), as SNS posts it.
    public func notification(_ message: String, messageId: String = UUID().uuidString.lowercased(), subject: String? = nil,
                             signatureVersion: String = "1", certificateBase: String) throws -> String {
        var fields: [String: String] = ["Type": "Notification", "MessageId": messageId, "TopicArn": topicArn, "Message": message,
                                        "Timestamp": Self.timestamp(),
                                        "UnsubscribeURL": certificateBase + "/?Action=Unsubscribe&SubscriptionArn=\(topicArn):a745747c"]
        if let subject { fields["Subject"] = subject }
        return try signed(fields, version: signatureVersion, certificateBase: certificateBase)
    }

    /// A signed `SubscriptionConfirmation` whose `SubscribeURL` is on `subscribeBase`.
    public func subscriptionConfirmation(token: String = "2336412f37fb687f5d51e6e2425c464de12884d5", signatureVersion: String = "1",
                                         certificateBase: String, subscribeBase: String? = nil) throws -> String {
        let fields: [String: String] = [
            "Type": "SubscriptionConfirmation", "MessageId": UUID().uuidString.lowercased(), "Token": token, "TopicArn": topicArn,
            "Message": "You have chosen to subscribe to the topic \(topicArn).\nTo confirm the subscription, visit the SubscribeURL included in this message.",
            "SubscribeURL": (subscribeBase ?? certificateBase) + "/?Action=ConfirmSubscription&TopicArn=\(topicArn)&Token=\(token)",
            "Timestamp": Self.timestamp()]
        return try signed(fields, version: signatureVersion, certificateBase: certificateBase)
    }

    /// A Real-Time Notification's `Message` in the shape of Amazon's examples.
    public static func realTimeNotification(receiptId: String, appUserId: String, type: String = "SUBSCRIPTION_RENEWED",
                                            package: String = "com.example.reader", beta: Bool = false) -> String {
        let object: [String: Any] = ["appPackageName": package, "notificationType": type, "appUserId": appUserId, "receiptId": receiptId,
                                     "relatedReceipts": [String: Any](), "timestamp": Int64(Date().timeIntervalSince1970 * 1000),
                                     "betaProductTransaction": beta]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    func signed(_ fields: [String: String], version: String, certificateBase: String) throws -> String {
        var fields = fields
        let keys = fields["Type"] == "Notification"
            ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
            : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
        var text = ""
        for key in keys { if let value = fields[key] { text += key + "\n" + value + "\n" } }
        let bytes = Data(text.utf8)
        let signature = version == "2"
            ? try key.signature(for: SHA256.hash(data: bytes), padding: .insecurePKCS1v1_5)
            : try key.signature(for: Insecure.SHA1.hash(data: bytes), padding: .insecurePKCS1v1_5)
        fields["SignatureVersion"] = version
        fields["Signature"] = signature.rawRepresentation.base64EncodedString()
        fields["SigningCertURL"] = certificateBase + Self.certificatePath
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
