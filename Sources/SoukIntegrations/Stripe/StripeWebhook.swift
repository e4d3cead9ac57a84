import Crypto
import Foundation

/// Stripe's webhook signatures: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>][,v0=<hex>]`,
/// where each `v1` is the HMAC-SHA256 of `"<t>.<raw body>"` keyed with the endpoint's signing secret
/// (`whsec_…`, used whole as the key). Several `v1` values appear while a secret is rolled; any one
/// may match. `v0` (test-mode) and unknown schemes are ignored.
///
/// The timestamp is signed with the body, so a captured delivery cannot be replayed later: it is
/// refused once more than the tolerance (Stripe's libraries default to 300 seconds) from `now`,
/// in either direction, since a time far in the future is as wrong as one far in the past.
public enum StripeWebhook {
    public static let header = "Stripe-Signature"

    /// Checks the signature of `payload` (the body exactly as received, never re-serialized JSON) and
    /// returns the event it holds.
    public static func verify(payload: [UInt8], header: String?, secret: String, now: Date,
                              tolerance: TimeInterval = 300) throws(StripeWebhookError) -> StripeEvent {
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else { throw StripeWebhookError(.missingHeader) }
        var timestamp: Int64?
        var sawTimestamp = false
        var signatures: [[UInt8]] = []
        for element in header.split(separator: ",") {
            let pair = element.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "t" where !sawTimestamp:
                sawTimestamp = true
                if pair[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { timestamp = Int64(pair[1]) }
            case "v1":
                signatures.append(Array(pair[1].lowercased().utf8))
            default:
                continue
            }
        }
        guard let timestamp else { throw StripeWebhookError(.malformed, detail: "no t=<unix seconds>") }
        guard !signatures.isEmpty else { throw StripeWebhookError(.malformed, detail: "no v1 signature") }
        let expected = Array(hex(signature(payload: payload, secret: secret, timestamp: timestamp)).utf8)
        // `contains` may stop at the first match; each comparison on its own takes the same time
        // wherever the first differing byte is.
        guard signatures.contains(where: { constantTimeEqual($0, expected) }) else { throw StripeWebhookError(.noMatchingSignature) }
        guard abs(now.timeIntervalSince1970 - TimeInterval(timestamp)) <= tolerance else {
            throw StripeWebhookError(.outsideTolerance)
        }
        return try StripeEvent.parse(payload)
    }

    /// The header Stripe would send with `payload` at `timestamp` (whole seconds), for fakes and tests.
    public static func signatureHeader(payload: [UInt8], secret: String, timestamp: Date) -> String {
        let t = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        return "t=\(t),v1=\(hex(signature(payload: payload, secret: secret, timestamp: t)))"
    }

    static func signature(payload: [UInt8], secret: String, timestamp: Int64) -> [UInt8] {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
        mac.update(data: Array("\(timestamp).".utf8))
        mac.update(data: payload)
        return Array(mac.finalize())
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Why a Stripe webhook was refused. Never quotes the header, the secret or the body.
public struct StripeWebhookError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// No `Stripe-Signature` header.
        case missingHeader = "missing-header"
        /// The header has no `t=` timestamp or no `v1=` signature.
        case malformed
        /// No `v1` matches the body under this secret (a wrong secret, or an altered body or timestamp).
        case noMatchingSignature = "no-matching-signature"
        /// The signed timestamp is further from now than the tolerance (a replay, or a wrong clock).
        case outsideTolerance = "outside-tolerance"
        /// The signed body is not JSON.
        case notJSON = "not-json"
        /// The signed body is JSON but not a Stripe event (no id, type, created or data.object).
        case notAnEvent = "not-an-event"
    }

    public var kind: Kind
    /// What exactly was wrong (a JSON path, a missing element); never part of the signed material.
    public var detail: String?

    public init(_ kind: Kind, detail: String? = nil) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String {
        let sentence: String
        switch kind {
        case .missingHeader: sentence = "The request has no Stripe-Signature header."
        case .malformed: sentence = "The Stripe-Signature header is not of the form t=<unix seconds>,v1=<hex>."
        case .noMatchingSignature: sentence = "No v1 signature in the Stripe-Signature header matches the body under the webhook secret."
        case .outsideTolerance: sentence = "The Stripe-Signature timestamp is too far from now (a replayed delivery or a wrong clock)."
        case .notJSON: sentence = "The webhook body is not JSON."
        case .notAnEvent: sentence = "The webhook body is not a Stripe event."
        }
        guard let detail else { return sentence }
        return "\(sentence.dropLast()) (\(detail))."
    }
}
