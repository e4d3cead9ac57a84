import Crypto
import Foundation
import SwiftASN1
import Synchronization
@_spi(FixedExpiryValidationTime) import X509

/// Validates the `x5c` chain of App Store signed data (spec §4.1 steps 2–4), as Apple's
/// `ChainVerifier` does: the leaf and intermediate from the header (the header's root is never
/// used), RFC 5280 path validation to one of the trusted roots at the given instant, a chain of
/// exactly three, the intermediate's and the leaf's Apple OIDs. Answers the leaf's P-256 key.
///
/// Verified (leaf, intermediate) pairs are cached with the instants their chain is valid for, so a
/// second transaction signed by the same leaf skips path building; a cached pair still answers
/// "not valid" for a `signedDate` outside its certificates' validity.
final class AppleChainVerifier: Sendable {
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let cacheCapacity = 32
    static let cacheLifetime: TimeInterval = 15 * 60

    private let roots: CertificateStore
    private let now: @Sendable () -> Date
    private let cache = Mutex<[CacheKey: CacheEntry]>([:])

    /// - Throws: when a root is not a DER certificate (misconfiguration, at start-up).
    init(rootCertificates: [Data], now: @escaping @Sendable () -> Date) throws {
        roots = CertificateStore(try rootCertificates.map { try Certificate(derEncoded: [UInt8]($0)) })
        self.now = now
    }

    /// How many verified chains are cached (for tests).
    var cachedChainCount: Int { cache.withLock { $0.count } }

    func verify(x5c: [String?], at validationTime: Date) async -> Result<P256.Signing.PublicKey, AppleVerificationFailure> {
        guard x5c.count == 3 else {
            return .failure(.init(.invalidChainLength, "x5c holds \(x5c.count) certificates, not 3 (leaf, intermediate, root)"))
        }
        guard let leafText = x5c[0], let intermediateText = x5c[1],
              let leafDER = Data(base64Encoded: leafText), let intermediateDER = Data(base64Encoded: intermediateText) else {
            return .failure(.init(.invalidCertificate, "an x5c certificate is not base64"))
        }
        let key = CacheKey(leaf: leafDER, intermediate: intermediateDER)
        if let entry = cachedEntry(for: key) {
            guard entry.validity.contains(validationTime) else {
                return .failure(.init(.certificateNotValid, "a certificate of the chain is not valid at \(validationTime)"))
            }
            return .success(entry.publicKey)
        }
        let leaf: Certificate
        let intermediate: Certificate
        do {
            leaf = try Certificate(derEncoded: [UInt8](leafDER))
            intermediate = try Certificate(derEncoded: [UInt8](intermediateDER))
        } catch {
            return .failure(.init(.invalidCertificate, "an x5c certificate is not DER X.509"))
        }

        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: validationTime)
            AppleOIDPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate(let chain):
            let certificates = Array(chain)
            guard let publicKey = P256.Signing.PublicKey(leaf.publicKey) else {
                return .failure(.init(.untrustedChain, "the leaf's key is not P-256"))
            }
            let validity = certificates.map(\.notValidBefore).max()!...certificates.map(\.notValidAfter).min()!
            remember(CacheEntry(publicKey: publicKey, validity: validity, cachedAt: now()), for: key)
            return .success(publicKey)
        case .couldNotValidate(let failures):
            return .failure(Self.explain(failures, leaf: leaf, intermediate: intermediate, at: validationTime))
        }
    }

    /// The most precise reason among the candidate chains' policy failures.
    private static func explain(_ failures: [CertificateValidationResult.PolicyFailure], leaf: Certificate,
                                intermediate: Certificate, at time: Date) -> AppleVerificationFailure {
        let reasons = failures.map { String(describing: $0.policyFailureReason) }
        if reasons.contains(AppleOIDPolicy.missingIntermediateOID) {
            return .init(.missingIntermediateOID, "the intermediate lacks OID \(intermediateOID)")
        }
        if reasons.contains(AppleOIDPolicy.missingLeafOID) {
            return .init(.missingLeafOID, "the leaf lacks OID \(leafOID)")
        }
        if reasons.contains(AppleOIDPolicy.unexpectedLength) {
            return .init(.untrustedChain, "the chain to a trusted root is not leaf, intermediate, root")
        }
        let chains = failures.map { Array($0.chain) }
        let notValidAtTime = chains.contains { chain in
            chain.contains { !($0.notValidBefore...$0.notValidAfter).contains(time) }
        }
        if notValidAtTime {
            return .init(.certificateNotValid, "a certificate of the chain is not valid at \(time)")
        }
        if failures.isEmpty {
            return .init(.untrustedChain, "the chain does not lead to a trusted root")
        }
        return .init(.untrustedChain, "the chain fails RFC 5280 validation: \(reasons.joined(separator: "; "))")
    }

    private func cachedEntry(for key: CacheKey) -> CacheEntry? {
        let now = now()
        return cache.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now.timeIntervalSince(entry.cachedAt) < Self.cacheLifetime else {
                entries[key] = nil
                return nil
            }
            return entry
        }
    }

    private func remember(_ entry: CacheEntry, for key: CacheKey) {
        let now = now()
        cache.withLock { entries in
            entries[key] = entry
            guard entries.count > Self.cacheCapacity else { return }
            entries = entries.filter { now.timeIntervalSince($0.value.cachedAt) < Self.cacheLifetime }
            while entries.count > Self.cacheCapacity, let oldest = entries.min(by: { $0.value.cachedAt < $1.value.cachedAt }) {
                entries[oldest.key] = nil
            }
        }
    }

    private struct CacheKey: Hashable {
        var leaf: Data
        var intermediate: Data
    }

    private struct CacheEntry {
        var publicKey: P256.Signing.PublicKey
        var validity: ClosedRange<Date>
        var cachedAt: Date
    }
}

/// Apple's OID policy: exactly leaf, intermediate, root, with the WWDR intermediate OID and the
/// receipt-signing leaf OID (spec §4.1 step 3). Without it any Apple developer certificate could sign.
struct AppleOIDPolicy: VerifierPolicy {
    static let unexpectedLength = "AppleOIDPolicy: chain is not leaf, intermediate, root"
    static let missingIntermediateOID = "AppleOIDPolicy: intermediate lacks 1.2.840.113635.100.6.2.1"
    static let missingLeafOID = "AppleOIDPolicy: leaf lacks 1.2.840.113635.100.6.11.1"

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else { return .failsToMeetPolicy(reason: Self.unexpectedLength) }
        guard chain[1].extensions.contains(where: { $0.oid == AppleChainVerifier.intermediateOID }) else {
            return .failsToMeetPolicy(reason: Self.missingIntermediateOID)
        }
        guard chain[0].extensions.contains(where: { $0.oid == AppleChainVerifier.leafOID }) else {
            return .failsToMeetPolicy(reason: Self.missingLeafOID)
        }
        return .meetsPolicy
    }
}
