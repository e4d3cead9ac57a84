import Crypto
import Foundation

/// The `Souk-Signature` header of a webhook delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
/// "<t>.<body>" under the endpoint's secret>`. Signing the timestamp with the body lets a receiver
/// refuse replays of an old delivery (`verify`'s tolerance) without keeping a list of event ids;
/// it should still deduplicate by `Souk-Event-Id`, since a retried or redelivered event is signed
/// again with a new timestamp.
///
/// Receivers: compute the HMAC over the raw body bytes as received (never a re-serialized JSON),
/// compare in constant time, and accept any of several `v1=` values (a header may carry more than
/// one while a secret is rotated).
public enum SoukWebhookSignature {
    public static let header = "Souk-Signature"

    /// The header value for `body` sent at `timestamp` (whole seconds).
    public static func sign(body: [UInt8], secret: String, timestamp: Date) -> String {
        let t = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        return "t=\(t),v1=\(hex(mac(body: body, secret: secret, t: t)))"
    }

    /// Why a signature was refused.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed
        case mismatch
        case outsideTolerance

        public var description: String {
            switch self {
            case .malformed: return "The Souk-Signature header is not of the form t=<unix seconds>,v1=<hex>."
            case .mismatch: return "The Souk-Signature does not match the body under this secret."
            case .outsideTolerance: return "The Souk-Signature's timestamp is too far from now (a replay or a wrong clock)."
            }
        }
    }

    /// Receiver-side check: the header signs `body` under `secret`, and its timestamp is within
    /// `tolerance` of `now` (default 5 minutes). Throws `Failure`.
    public static func verify(header: String, body: [UInt8], secret: String, now: Date = Date(),
                              tolerance: TimeInterval = 300) throws(Failure) {
        var t: Int64?
        var candidates: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "t": t = Int64(pair[1])
            case "v1": candidates.append(pair[1].lowercased())
            default: continue
            }
        }
        guard let t, !candidates.isEmpty else { throw .malformed }
        let expected = Array(hex(mac(body: body, secret: secret, t: t)).utf8)
        let matches = candidates.contains { candidate in
            let given = Array(candidate.utf8)
            guard given.count == expected.count else { return false }
            var difference: UInt8 = 0
            for index in given.indices { difference |= given[index] ^ expected[index] }
            return difference == 0
        }
        guard matches else { throw .mismatch }
        guard abs(now.timeIntervalSince1970 - Double(t)) <= tolerance else { throw .outsideTolerance }
    }

    static func mac(body: [UInt8], secret: String, t: Int64) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
        hmac.update(data: Array("\(t).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
