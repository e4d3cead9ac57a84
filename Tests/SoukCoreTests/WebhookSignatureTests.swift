import Foundation
import SoukCore
import Testing

/// `Souk-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` as a receiver checks it.
@Suite struct WebhookSignatureTests {
    static let secret = "whsec_0123456789abcdef"
    static let body = Array(#"{"id":"e1","type":"renewal"}"#.utf8)
    static let at = Date(timeIntervalSince1970: 1_800_000_000.7)

    @Test func theHeaderIsAnHMACOfTheTimestampAndTheBody() throws {
        let header = SoukWebhookSignature.sign(body: Self.body, secret: Self.secret, timestamp: Self.at)
        // Computed independently (Python: hmac.new(secret, b"1800000000." + body, hashlib.sha256).hexdigest()).
        #expect(header == "t=1800000000,v1=5f9f6c89b696a48cb3a9b54ea9ad416ac16a214e4dac0293c5a0d5fe30ce0d43")
        try SoukWebhookSignature.verify(header: header, body: Self.body, secret: Self.secret, now: Self.at.addingTimeInterval(60))
    }

    @Test func aTamperedBodyAWrongSecretAStaleTimestampOrGarbageAreRefused() {
        let header = SoukWebhookSignature.sign(body: Self.body, secret: Self.secret, timestamp: Self.at)
        var tampered = Self.body
        tampered[tampered.count - 3] = UInt8(ascii: "x")
        #expect(throws: SoukWebhookSignature.Failure.mismatch) {
            try SoukWebhookSignature.verify(header: header, body: tampered, secret: Self.secret, now: Self.at)
        }
        #expect(throws: SoukWebhookSignature.Failure.mismatch) {
            try SoukWebhookSignature.verify(header: header, body: Self.body, secret: "another secret!!", now: Self.at)
        }
        // The timestamp is signed: moving it breaks the signature.
        let moved = header.replacingOccurrences(of: "t=1800000000", with: "t=1800000600")
        #expect(throws: SoukWebhookSignature.Failure.mismatch) {
            try SoukWebhookSignature.verify(header: moved, body: Self.body, secret: Self.secret, now: Self.at.addingTimeInterval(600))
        }
        #expect(throws: SoukWebhookSignature.Failure.outsideTolerance) {
            try SoukWebhookSignature.verify(header: header, body: Self.body, secret: Self.secret, now: Self.at.addingTimeInterval(301))
        }
        #expect(throws: SoukWebhookSignature.Failure.malformed) {
            try SoukWebhookSignature.verify(header: "v1=abc", body: Self.body, secret: Self.secret, now: Self.at)
        }
    }

    @Test func anyOfSeveralV1ValuesMayMatch() throws {
        let header = SoukWebhookSignature.sign(body: Self.body, secret: Self.secret, timestamp: Self.at)
        let rotated = header.replacingOccurrences(of: ",v1=", with: ",v1=00ff,v1=")
        try SoukWebhookSignature.verify(header: rotated, body: Self.body, secret: Self.secret, now: Self.at)
    }
}
