import Foundation
import SoukCore

/// The App Store's `StoreVerifier`: the claim's `receipt` is the StoreKit 2 signed transaction
/// (JWS), verified locally by `AppleSignedDataVerifier` for the app `claim.app`. Both Production
/// and Sandbox are verified (the intake rule decides which environment an account may use);
/// `Xcode` / `LocalTesting` data never is. The `VerifiedPurchase` is built from the signed payload
/// only, never from the unsigned claim. Never throws: Apple's verification needs no network.
public struct AppleStoreVerifier: StoreVerifier {
    public let store: CommerceStore = .appleStore
    public let verifier: AppleSignedDataVerifier

    public init(verifier: AppleSignedDataVerifier) {
        self.verifier = verifier
    }

    /// The built-in Apple Root CA - G3 plus `appleRootCertificates` (DER paths).
    /// - Throws: when a configured root cannot be read or is not a certificate.
    public init(additionalRootCertificatePaths paths: [String], now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.init(verifier: try AppleSignedDataVerifier(additionalRootCertificatePaths: paths, now: now))
    }

    public func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
        let jws = Self.signedTransaction(in: claim.receipt)
        switch await verifier.verifyTransaction(jws, bundleId: claim.app, environments: [.production, .sandbox]) {
        case .invalid(let failure):
            return .refused(Self.refusal(for: failure))
        case .valid(let transaction):
            return Self.purchase(from: transaction)
        }
    }

    /// The receipt as the app sent it: the JWS itself, or a JSON string / object holding it
    /// (`signedTransaction`, `signedTransactionInfo`, `jwsRepresentation`), since seed 003's
    /// `receipt` is free text and apps wrap it in different ways.
    static func signedTransaction(in receipt: String) -> String {
        let trimmed = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first, first == "{" || first == "\"", let data = trimmed.data(using: .utf8) else { return trimmed }
        if let text = try? JSONDecoder().decode(String.self, from: data) {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let object = try? JSONDecoder().decode([String: String?].self, from: data) {
            for key in ["signedTransaction", "signedTransactionInfo", "jwsRepresentation", "receipt"] {
                if let value = object[key] ?? nil { return value.trimmingCharacters(in: .whitespacesAndNewlines) }
            }
        }
        return trimmed
    }

    /// The purchase as the signed payload states it; refused when a field Souk needs is missing.
    static func purchase(from transaction: AppleTransactionPayload) -> StoreVerdict {
        guard let transactionId = transaction.transactionId, let productId = transaction.productId,
              let purchaseDate = transaction.purchaseDate, let signedDate = transaction.signedDate,
              let bundleId = transaction.bundleId,
              let raw = transaction.rawEnvironment, let environment = CommerceEnvironment(rawValue: raw) else {
            return .refused(.invalidReceipt("the signed transaction lacks transactionId, productId, purchaseDate, signedDate, bundleId or environment"))
        }
        return .verified(VerifiedPurchase(
            store: .appleStore,
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId ?? transactionId,
            storeProductId: productId,
            type: transaction.rawType.flatMap(ProductType.init(appleType:)),
            purchaseDate: purchaseDate,
            originalPurchaseDate: transaction.originalPurchaseDate,
            expiresDate: transaction.expiresDate,
            revocationDate: transaction.revocationDate,
            revocationReason: transaction.rawRevocationReason.map(String.init),
            quantity: transaction.quantity ?? 1,
            ownershipType: transaction.rawInAppOwnershipType ?? AppleOwnershipType.purchased.rawValue,
            environment: environment,
            app: bundleId,
            signedDate: signedDate,
            appAccountToken: transaction.appAccountToken
        ))
    }

    /// Verification failures as purchase refusals: the app and the environment keep their own
    /// codes; everything about the signature is `invalid-signature`, a JWS that cannot be read
    /// `invalid-receipt`. The detail names the precise check.
    static func refusal(for failure: AppleVerificationFailure) -> PurchaseRefusal {
        switch failure.reason {
        case .wrongApp: .wrongApp(failure.detail)
        case .wrongEnvironment: .wrongEnvironment(failure.detail)
        case .malformedJWS: .invalidReceipt("\(failure.reason.rawValue): \(failure.detail)")
        default: .invalidSignature("\(failure.reason.rawValue): \(failure.detail)")
        }
    }
}
