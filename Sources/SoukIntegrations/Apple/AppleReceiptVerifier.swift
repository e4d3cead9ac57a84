import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies a StoreKit 1 app receipt (base64 PKCS#7) as Apple's `AppReceiptVerifier` does with
/// online checks off:
///
/// 1. base64 (line breaks tolerated), a PKCS#7 signedData container, a readable payload
///    (`malformedReceipt`);
/// 2. the signer's certificate is in the container and chains (RFC 5280) to a trusted root —
///    Apple Root CA - G3, Apple Inc. Root, or a configured extra root — through one of the
///    container's certificates, at the receipt's creation date (now when it has none), with
///    Apple's OIDs (WWDR intermediate, receipt-signing leaf) and exactly leaf, intermediate, root
///    (`untrustedChain`, `certificateNotValid`, `missingIntermediateOID`, `missingLeafOID`);
/// 3. the signature verifies with the signer's key (`invalidSignature`): RSA PKCS#1 v1.5 with the
///    digest algorithm the signer names (SHA-1 or SHA-256; the App Store declares a bare
///    `rsaEncryption`), or a full signature algorithm (RSA, or ECDSA with SHA-256) whose digest
///    is the signer's; with signed attributes, their `messageDigest` must be the payload's digest.
///
/// swift-certificates' `CMS.isValidSignature` is not used for the signature: it refuses a signer
/// whose signature algorithm is `rsaEncryption`, which is what every App Store receipt declares.
/// The bundle id and the environment are the caller's to check.
struct AppleReceiptVerifier: Sendable {
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let sha1WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 5]
    static let sha256WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]

    private let roots: CertificateStore
    private let now: @Sendable () -> Date

    /// - Throws: when a root is not a DER certificate (misconfiguration, at start-up).
    init(rootCertificates: [Data], now: @escaping @Sendable () -> Date) throws {
        roots = CertificateStore(try rootCertificates.map { try Certificate(derEncoded: [UInt8]($0)) })
        self.now = now
    }

    func verify(_ base64: String) async -> AppleVerificationResult<AppleAppReceipt> {
        guard let der = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !der.isEmpty else {
            return .invalid(.init(.malformedReceipt, "the receipt is not base64"))
        }
        let container: AppleReceiptContainer
        let receipt: AppleAppReceipt
        do {
            container = try AppleReceiptContainer(berEncoded: [UInt8](der))
            receipt = try AppleAppReceipt.parse(container.content)
        } catch let malformed as AppleReceiptContainer.Malformed {
            return .invalid(.init(.malformedReceipt, malformed.detail))
        } catch let malformed as AppleAppReceipt.Malformed {
            return .invalid(.init(.malformedReceipt, malformed.detail))
        } catch {
            return .invalid(.init(.malformedReceipt, "the receipt cannot be read"))
        }
        guard let signer = container.signerCertificate else {
            return .invalid(.init(.untrustedChain, "the container does not hold the signer's certificate"))
        }
        // Read before it is trusted only to know when to judge the chain, as Apple's verifier does.
        let instant = receipt.creationDate ?? now()
        if let failure = await chainFailure(signer, intermediates: container.certificates, at: instant) {
            return .invalid(failure)
        }
        if let failure = Self.signatureFailure(container, signer: signer) { return .invalid(failure) }
        return .valid(receipt)
    }

    private func chainFailure(_ signer: Certificate, intermediates: [Certificate], at instant: Date) async -> AppleVerificationFailure? {
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: instant)
            AppleOIDPolicy()
        }
        switch await verifier.validate(leaf: signer, intermediates: CertificateStore(intermediates)) {
        case .validCertificate:
            return nil
        case .couldNotValidate(let failures):
            let reasons = failures.map { String(describing: $0.policyFailureReason) }
            if reasons.contains(AppleOIDPolicy.missingIntermediateOID) {
                return .init(.missingIntermediateOID, "the intermediate lacks OID \(AppleChainVerifier.intermediateOID)")
            }
            if reasons.contains(AppleOIDPolicy.missingLeafOID) {
                return .init(.missingLeafOID, "the signer lacks OID \(AppleChainVerifier.leafOID)")
            }
            let outOfDate = failures.contains { failure in
                failure.chain.contains { !($0.notValidBefore...$0.notValidAfter).contains(instant) }
            }
            if outOfDate { return .init(.certificateNotValid, "a certificate of the chain is not valid at \(instant)") }
            return .init(.untrustedChain, "the signer does not chain to a trusted Apple root")
        }
    }

    private static func signatureFailure(_ container: AppleReceiptContainer, signer: Certificate) -> AppleVerificationFailure? {
        let algorithm: Certificate.SignatureAlgorithm
        switch (container.signatureAlgorithm, container.digestAlgorithm) {
        case (Self.rsaEncryption, AppleReceiptContainer.sha1OID), (Self.sha1WithRSA, AppleReceiptContainer.sha1OID):
            algorithm = .sha1WithRSAEncryption
        case (Self.rsaEncryption, AppleReceiptContainer.sha256OID), (Self.sha256WithRSA, AppleReceiptContainer.sha256OID):
            algorithm = .sha256WithRSAEncryption
        case (Self.ecdsaWithSHA256, AppleReceiptContainer.sha256OID):
            algorithm = .ecdsaWithSHA256
        default:
            return .init(.invalidSignature, "the signer's algorithms (\(container.signatureAlgorithm), digest \(container.digestAlgorithm)) are not RSA or ECDSA with SHA-1 or SHA-256")
        }
        var signed = container.content
        if let attributes = container.signedAttributes {
            let digest: [UInt8] = container.digestAlgorithm == AppleReceiptContainer.sha1OID
                ? Array(Insecure.SHA1.hash(data: container.content)) : Array(SHA256.hash(data: container.content))
            guard container.messageDigest == digest else {
                return .init(.invalidSignature, "the signed messageDigest is not the payload's digest")
            }
            signed = attributes
        }
        guard signer.publicKey.isValidSignature(container.signature, for: signed, signatureAlgorithm: algorithm) else {
            return .init(.invalidSignature, "the signature does not verify with the signer's key")
        }
        return nil
    }
}
