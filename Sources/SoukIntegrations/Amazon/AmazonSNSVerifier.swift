import Foundation
import SoukCore
import X509

/// Why an SNS message is not taken as Amazon's.
public enum AmazonSNSRefusal: String, Sendable, Equatable {
    /// No `Signature`, `SignatureVersion` or `SigningCertURL`.
    case unsigned
    /// `SignatureVersion` other than 1 (SHA1withRSA) or 2 (SHA256withRSA).
    case unsupportedSignatureVersion
    /// `SigningCertURL` (or `SubscribeURL`) is not an SNS URL: it does not match `amazonSnsCertUrlPattern`, or is not a `.pem`.
    case untrustedURL
    /// The certificate could not be read, or is outside its validity.
    case badCertificate
    /// The signature does not verify with the certificate.
    case badSignature
    /// A `Type` SNS does not send.
    case unknownType
}

/// Verifies Amazon SNS messages as AWS's "Verifying the signatures of Amazon SNS messages" asks:
/// the certificate is fetched only from a `SigningCertURL` matching the trusted pattern (default
/// `^https://sns\.[a-z0-9-]+\.amazonaws\.com/`) whose path ends `.pem`, cached by URL, checked for
/// validity; the signature over the type's string to sign is RSA PKCS#1 v1.5 with SHA1
/// (`SignatureVersion` 1) or SHA256 (2). Also confirms subscriptions by fetching `SubscribeURL`
/// under the same pattern. A certificate that cannot be fetched (a fault, 5xx) throws `StoreFault`:
/// an outage, never a verdict.
public actor AmazonSNSVerifier {
    /// The trusted URL pattern when `amazonSnsCertUrlPattern` is not set.
    public static let defaultPattern = #"^https://sns\.[a-z0-9-]+\.amazonaws\.com/"#
    /// SNS uses a handful of certificates; more cached URLs than this start the cache afresh.
    static let cacheLimit = 32

    /// A regular expression (kept as text: compiled expressions are not `Sendable`).
    let pattern: String
    let http: StoreHTTPClient
    let now: @Sendable () -> Date
    var certificates: [String: Certificate] = [:]

    /// - Throws: when `pattern` is not a regular expression (the setting is checked at start-up first).
    public init(pattern: String = AmazonSNSVerifier.defaultPattern, http: StoreHTTPClient, now: @escaping @Sendable () -> Date = { Date() }) throws {
        _ = try NSRegularExpression(pattern: pattern)
        self.pattern = pattern
        self.http = http
        self.now = now
    }

    /// Whether `url` may be fetched: it matches the pattern.
    public nonisolated func trusts(_ url: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern), URL(string: url)?.host != nil else { return false }
        return expression.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
    }

    /// nil when the message is SNS's; else why not. Throws `StoreFault` when the certificate cannot be fetched now.
    public func refusal(of message: AmazonSNSMessage) async throws(StoreFault) -> AmazonSNSRefusal? {
        guard let signature = message.signature.flatMap({ Data(base64Encoded: $0) }), let version = message.signatureVersion,
              let certURL = message.signingCertURL else { return .unsigned }
        let algorithm: Certificate.SignatureAlgorithm
        switch version {
        case "1": algorithm = .sha1WithRSAEncryption
        case "2": algorithm = .sha256WithRSAEncryption
        default: return .unsupportedSignatureVersion
        }
        guard trusts(certURL), URL(string: certURL)?.path.hasSuffix(".pem") == true else { return .untrustedURL }
        guard let text = message.stringToSign else { return .unknownType }
        guard let certificate = try await certificate(at: certURL) else { return .badCertificate }
        let at = now()
        guard certificate.notValidBefore <= at, at <= certificate.notValidAfter else { return .badCertificate }
        guard certificate.publicKey.isValidSignature(signature, for: Data(text.utf8), signatureAlgorithm: algorithm) else {
            return .badSignature
        }
        return nil
    }

    /// The certificate at `url` (cached), nil when the answer is not one (a 4xx, not PEM).
    func certificate(at url: String) async throws(StoreFault) -> Certificate? {
        if let cached = certificates[url] { return cached }
        let response = try await http.send(.GET, url, label: "Amazon SNS signing certificate")
        guard response.status == 200, let certificate = try? Certificate(pemEncoded: String(decoding: response.body, as: UTF8.self)) else {
            return nil
        }
        if certificates.count >= Self.cacheLimit { certificates.removeAll() }
        certificates[url] = certificate
        return certificate
    }

    /// What confirming a subscription came to.
    public enum Confirmation: Sendable, Equatable {
        case confirmed
        /// `SubscribeURL` is not an SNS URL: not fetched.
        case untrustedURL
        /// SNS answered this status (an expired token, a deleted topic).
        case refused(Int)
    }

    /// Confirms a `SubscriptionConfirmation` by fetching its `SubscribeURL` (only under the trusted pattern).
    /// Throws `StoreFault` when SNS gives no answer (a fault, 5xx).
    public func confirm(_ message: AmazonSNSMessage) async throws(StoreFault) -> Confirmation {
        guard let url = message.subscribeURL, trusts(url) else { return .untrustedURL }
        let response = try await http.send(.GET, url, label: "Amazon SNS SubscribeURL")
        return (200..<300).contains(response.status) ? .confirmed : .refused(response.status)
    }
}
