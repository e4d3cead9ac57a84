import Crypto
import Foundation
import JWTKit
import SoukCore

/// Verifies and decodes App Store signed data — StoreKit 2 transactions, renewal info, App Store
/// Server Notifications V2 — locally and exactly as Apple's App Store Server Library does with
/// online checks off (spec §4.1), in this order:
///
/// 1. three base64url segments whose header and payload are JSON (`malformedJWS`); `x5c` present
///    (`missingCertificateChain`); `alg` = `ES256` (`unsupportedAlgorithm`);
/// 2. `x5c` holds exactly three certificates (`invalidChainLength`); leaf and intermediate are
///    base64 DER (`invalidCertificate`); they chain (RFC 5280) to a trusted root — the built-in
///    Apple Root CA - G3 plus the configured extra roots — at the payload's `signedDate`
///    (`untrustedChain`, `certificateNotValid`): data Apple signed with a leaf that
///    has since expired still verifies, as it does with Apple's library;
/// 3. the intermediate carries OID 1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1
///    (`missingIntermediateOID`, `missingLeafOID`);
/// 4. the ES256 signature verifies with the leaf's P-256 key (`invalidSignature`), and JWT
///    registered claims, which Apple never sets, are what PyJWT accepts (`invalidRegisteredClaim`);
/// 5. the app (`wrongApp`) and the environment (`wrongEnvironment`): `Xcode` and `LocalTesting`
///    data is not Apple-signed and is never accepted.
///
/// Results are values; only unreadable roots throw, at start-up. Verified chains are cached.
public struct AppleSignedDataVerifier: Sendable {
    /// When certificates must be valid.
    public enum ValidationTime: String, Sendable, CaseIterable {
        /// At the payload's `signedDate` (now when it has none): Apple's library with online checks
        /// off, and what a server re-verifying stored or replayed data must use.
        case signedDate = "signed-date"
        /// At the current time (Apple's online mode, without its OCSP queries): data signed by a
        /// leaf that has expired since is refused.
        case now
    }

    private let chainVerifier: AppleChainVerifier
    let receiptVerifier: AppleReceiptVerifier
    private let now: @Sendable () -> Date
    private let validationTime: ValidationTime

    /// - Parameters:
    ///   - additionalRootCertificates: DER roots trusted *in addition to* Apple Root CA - G3
    ///     (`appleRootCertificates`); tests add their own Apple-shaped chain's root here.
    ///   - validationTime: `.signedDate` (the default) or `.now`.
    ///   - now: the clock used when a payload carries no `signedDate`, and for the cache's lifetime.
    /// - Throws: when a root is not a DER certificate.
    public init(additionalRootCertificates: [Data] = [], validationTime: ValidationTime = .signedDate,
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        chainVerifier = try AppleChainVerifier(rootCertificates: AppleRootCertificates.trusted(adding: additionalRootCertificates), now: now)
        receiptVerifier = try AppleReceiptVerifier(rootCertificates: AppleRootCertificates.receiptRoots(adding: additionalRootCertificates),
                                                   now: now)
        self.validationTime = validationTime
        self.now = now
    }

    /// Reads `appleRootCertificates` (DER file paths) and adds them to the built-in root.
    public init(additionalRootCertificatePaths paths: [String], validationTime: ValidationTime = .signedDate,
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        let roots = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        try self.init(additionalRootCertificates: roots, validationTime: validationTime, now: now)
    }

    /// How many verified chains are cached.
    public var cachedChainCount: Int { chainVerifier.cachedChainCount }

    /// A StoreKit 2 signed transaction, for the app `bundleId`, made in one of `environments`.
    public func verifyTransaction(_ signedTransaction: String, bundleId: String,
                                  environments: Set<CommerceEnvironment>) async -> AppleVerificationResult<AppleTransactionPayload> {
        let result = await verifySignedData(signedTransaction, as: AppleTransactionPayload.self)
        guard case .valid(let transaction) = result else { return result }
        guard transaction.bundleId == bundleId else {
            return .invalid(.init(.wrongApp, "the transaction belongs to \(transaction.bundleId ?? "no app"), not \(bundleId)"))
        }
        if let refusal = Self.check(environment: transaction.rawEnvironment, in: environments) { return .invalid(refusal) }
        return result
    }

    /// A signed renewal info. It carries no `bundleId`: only its environment is checked, as Apple does.
    public func verifyRenewalInfo(_ signedRenewalInfo: String,
                                  environments: Set<CommerceEnvironment>) async -> AppleVerificationResult<AppleRenewalInfoPayload> {
        let result = await verifySignedData(signedRenewalInfo, as: AppleRenewalInfoPayload.self)
        guard case .valid(let renewalInfo) = result else { return result }
        if let refusal = Self.check(environment: renewalInfo.rawEnvironment, in: environments) { return .invalid(refusal) }
        return result
    }

    /// An App Store Server Notification V2 `signedPayload`. The app is `bundleId`; a Production
    /// notification must also name `appAppleId` (Apple's library refuses to verify production
    /// notifications without one).
    public func verifyNotification(_ signedPayload: String, bundleId: String, appAppleId: Int64?,
                                   environments: Set<CommerceEnvironment>) async -> AppleVerificationResult<AppleNotificationPayload> {
        let result = await verifySignedData(signedPayload, as: AppleNotificationPayload.self)
        guard case .valid(let notification) = result else { return result }
        let app: (bundleId: String?, appAppleId: Int64?, environment: String?)
        if let data = notification.data {
            app = (data.bundleId, data.appAppleId, data.rawEnvironment)
        } else if let summary = notification.summary {
            app = (summary.bundleId, summary.appAppleId, summary.rawEnvironment)
        } else if let token = notification.externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") == true
            app = (token.bundleId, token.appAppleId, sandbox ? AppleEnvironment.sandbox.rawValue : AppleEnvironment.production.rawValue)
        } else {
            app = (nil, nil, nil)
        }
        let production = app.environment == AppleEnvironment.production.rawValue
        guard app.bundleId == bundleId, !production || (appAppleId != nil && app.appAppleId == appAppleId) else {
            return .invalid(.init(.wrongApp, "the notification is for \(app.bundleId ?? "no app"), not \(bundleId)"))
        }
        if let refusal = Self.check(environment: app.environment, in: environments) { return .invalid(refusal) }
        return result
    }

    /// Steps 1–4 only (format, chain, OIDs, signature, registered claims), for any signed payload;
    /// the caller checks the app and the environment.
    public func verifySignedData<Payload: AppleSignedPayload>(_ jws: String, as _: Payload.Type) async -> AppleVerificationResult<Payload> {
        let parsed: AppleJWS<Payload>
        switch AppleJWS<Payload>.parse(jws) {
        case .success(let value): parsed = value
        case .failure(let failure): return .invalid(failure)
        }
        guard let x5c = parsed.header.x5c, !x5c.isEmpty else {
            return .invalid(.init(.missingCertificateChain, "the header has no x5c certificate chain"))
        }
        guard parsed.header.alg == "ES256" else {
            return .invalid(.init(.unsupportedAlgorithm, "alg is \(parsed.header.alg ?? "missing"), not ES256"))
        }
        // Apple's library judges the chain at signedDate (whole seconds) when online checks are off.
        let instant = validationTime == .signedDate ? parsed.signingInstant ?? now() : now()
        let publicKey: P256.Signing.PublicKey
        switch await chainVerifier.verify(x5c: x5c, at: instant) {
        case .success(let key): publicKey = key
        case .failure(let failure): return .invalid(failure)
        }
        guard await Self.signatureVerifies(jws, with: publicKey) else {
            return .invalid(.init(.invalidSignature, "the ES256 signature does not verify with the leaf's key"))
        }
        if let refusal = AppleRegisteredClaims.check(parsed.payloadJSON, now: now()) { return .invalid(refusal) }
        return .valid(parsed.payload)
    }

    /// ES256 with JWTKit, the leaf's key as the only key (as Apple's Swift library does).
    private static func signatureVerifies(_ jws: String, with publicKey: P256.Signing.PublicKey) async -> Bool {
        do {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: try ES256PublicKey(backing: publicKey))
            _ = try await keys.verify(jws, as: UncheckedClaims.self)
            return true
        } catch {
            return false
        }
    }

    static func check(environment raw: String?, in accepted: Set<CommerceEnvironment>) -> AppleVerificationFailure? {
        if let raw, let environment = CommerceEnvironment(rawValue: raw), accepted.contains(environment) { return nil }
        let accepting = accepted.map(\.rawValue).sorted().joined(separator: ", ")
        return .init(.wrongEnvironment, "the environment is \(raw ?? "missing"); accepted: \(accepting.isEmpty ? "none" : accepting)")
    }
}

/// The payload is decoded and judged separately; JWTKit checks only the signature.
private struct UncheckedClaims: JWTPayload {
    func verify(using _: some JWTAlgorithm) async throws {}
}
