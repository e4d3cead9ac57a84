import Foundation

/// The outcome of verifying App Store signed data: a value, never a thrown error (only a
/// misconfigured set of roots throws, at start-up), as Apple's `SignedDataVerifier` answers.
public enum AppleVerificationResult<Payload: Sendable>: Sendable {
    case valid(Payload)
    case invalid(AppleVerificationFailure)

    /// The payload when valid.
    public var payload: Payload? {
        if case .valid(let payload) = self { return payload }
        return nil
    }

    /// The failure when invalid.
    public var failure: AppleVerificationFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }
}

extension AppleVerificationResult: Equatable where Payload: Equatable {}

/// Why signed data was refused. `reason` is the precise check that failed (in the order
/// `AppleSignedDataVerifier` runs them); `appleStatus` is the `VerificationStatus` Apple's App
/// Store Server Library (Python, 3.x) reports for the same input, so verdicts can be compared one
/// for one. `detail` is for people and never contains the signed data.
public struct AppleVerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Equatable, CaseIterable {
        /// Not three base64url segments, or a header/payload that is not the expected JSON.
        case malformedJWS = "malformed-jws"
        /// The header has no `x5c` (or an empty one).
        case missingCertificateChain = "missing-certificate-chain"
        /// The header's `alg` is not `ES256`.
        case unsupportedAlgorithm = "unsupported-algorithm"
        /// `x5c` does not hold exactly three certificates (leaf, intermediate, root).
        case invalidChainLength = "invalid-chain-length"
        /// The leaf or the intermediate is not base64 DER.
        case invalidCertificate = "invalid-certificate"
        /// The chain does not lead to a trusted root (RFC 5280 path validation failed).
        case untrustedChain = "untrusted-chain"
        /// A certificate of the chain was not valid at the instant checked: the payload's
        /// `signedDate` (or now, when the verifier is set to judge at the current time).
        case certificateNotValid = "certificate-not-valid"
        /// The intermediate lacks OID 1.2.840.113635.100.6.2.1 (Apple WWDR intermediate).
        case missingIntermediateOID = "missing-intermediate-oid"
        /// The leaf lacks OID 1.2.840.113635.100.6.11.1 (App Store receipt signing).
        case missingLeafOID = "missing-leaf-oid"
        /// The ES256 signature does not verify with the leaf's key.
        case invalidSignature = "invalid-signature"
        /// A JWT registered claim PyJWT (under Apple's Python library) refuses: `exp` passed,
        /// `nbf`/`iat` in the future or not numbers, an `aud`, a `sub`/`jti` that is not a string.
        case invalidRegisteredClaim = "invalid-registered-claim"
        /// The payload's `bundleId` (or a notification's `appAppleId`) is not the expected app.
        case wrongApp = "wrong-app"
        /// The payload's `environment` is not one accepted (`Xcode` and `LocalTesting` never are).
        case wrongEnvironment = "wrong-environment"
        /// A StoreKit 1 app receipt that is not base64 PKCS#7 signedData, or whose payload is not
        /// the documented SET of receipt attributes.
        case malformedReceipt = "malformed-receipt"
    }

    public var reason: Reason
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// The status Apple's Python library raises for the same input (`VerificationStatus` name).
    /// Apple's Swift library says `INVALID_JWT_FORMAT` where Python says `VERIFICATION_FAILURE`
    /// for format, algorithm and header problems; both refuse.
    public var appleStatus: String {
        switch reason {
        case .malformedJWS, .malformedReceipt, .missingCertificateChain, .unsupportedAlgorithm, .untrustedChain,
             .certificateNotValid, .missingIntermediateOID, .missingLeafOID, .invalidSignature, .invalidRegisteredClaim:
            "VERIFICATION_FAILURE"
        case .invalidChainLength: "INVALID_CHAIN_LENGTH"
        case .invalidCertificate: "INVALID_CERTIFICATE"
        case .wrongApp: "INVALID_APP_IDENTIFIER"
        case .wrongEnvironment: "INVALID_ENVIRONMENT"
        }
    }

    public var description: String { "\(reason.rawValue): \(detail)" }
}
