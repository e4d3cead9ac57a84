import Foundation
import SoukCore

/// A compact JWS of App Store signed data, split and decoded but not yet trusted.
struct AppleJWS<Payload: AppleSignedPayload> {
    struct Header {
        /// `alg`, or a description when it is not a string (never `ES256` then).
        var alg: String?
        /// `x5c`: nil when absent or not a collection; entries that are not strings are nil.
        var x5c: [String?]?
    }

    var header: Header
    var payload: Payload
    var payloadJSON: Data
    /// When Apple signed the data, in whole seconds: `signedDate`, else `receiptCreationDate`
    /// (app receipts), as Apple's Python library reads them; nil when neither is present.
    var signingInstant: Date?

    /// Three base64url segments; a JSON object header (a `kid` must be a string, `crit` extensions
    /// are not supported — as PyJWT under Apple's Python library) and a JSON object payload of
    /// `Payload`'s shape (Apple's dates are milliseconds since 1970); a base64url signature.
    static func parse(_ jws: String) -> Result<AppleJWS, AppleVerificationFailure> {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            return .failure(.init(.malformedJWS, "a JWS has 3 segments, this has \(segments.count)"))
        }
        guard let headerData = Base64URL.decodeEitherAlphabet(segments[0]), let payloadData = Base64URL.decodeEitherAlphabet(segments[1]),
              Base64URL.decodeEitherAlphabet(segments[2]) != nil else {
            return .failure(.init(.malformedJWS, "a segment is not base64url"))
        }
        guard let fields = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any] else {
            return .failure(.init(.malformedJWS, "the header is not a JSON object"))
        }
        if let kid = fields["kid"], !(kid is String) {
            return .failure(.init(.malformedJWS, "the header's kid is not a string"))
        }
        if fields["crit"] != nil {
            return .failure(.init(.malformedJWS, "the header names critical extensions (crit)"))
        }
        guard let claims = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any] else {
            return .failure(.init(.malformedJWS, "the payload is not a JSON object"))
        }
        var kinds = Payload.fieldKinds
        kinds["receiptCreationDate"] = .integer
        let fieldsAsApple = AppleLenientFields.normalize(claims, kinds: kinds)
        let payload: Payload
        do {
            payload = try decoder.decode(Payload.self, from: try JSONSerialization.data(withJSONObject: fieldsAsApple))
        } catch {
            return .failure(.init(.malformedJWS, "the payload is not a \(Payload.self) object"))
        }
        let signed = [fieldsAsApple["signedDate"], fieldsAsApple["receiptCreationDate"]].lazy.compactMap { $0 }.first { !($0 is NSNull) }
        let signingInstant: Date?
        switch signed {
        case nil:
            signingInstant = nil
        case let number as NSNumber where number.doubleValue.isFinite:
            signingInstant = Date(timeIntervalSince1970: (number.doubleValue / 1000).rounded(.down))
        default:
            return .failure(.init(.malformedJWS, "signedDate is not a number of milliseconds"))
        }
        return .success(AppleJWS(header: Header(fields), payload: payload, payloadJSON: payloadData, signingInstant: signingInstant))
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}

extension AppleJWS.Header {
    init(_ fields: [String: Any]) {
        switch fields["alg"] {
        case nil, is NSNull: alg = nil
        case let text as String: alg = text
        case let other?: alg = "\(other)"
        }
        // Apple's Python library takes len(x5c) and indexes it: a list's entries, a string's
        // characters (never base64 certificates) and an object's keys count alike.
        switch fields["x5c"] {
        case let list as [Any]: x5c = list.map { $0 as? String }
        case let text as String: x5c = Array(repeating: nil, count: text.count)
        case let object as [String: Any]: x5c = Array(repeating: nil, count: object.count)
        default: x5c = nil
        }
    }
}
