import Foundation
import SoukCore

extension AppleSignedDataVerifier {
    /// A StoreKit 1 app receipt (base64 PKCS#7) for the app `bundleId`: signature and chain as
    /// `AppleReceiptVerifier` checks them (to Apple Root CA - G3, Apple Inc. Root or a configured
    /// root), then the receipt's bundle id (`wrongApp`) and its type, which must name Production or
    /// Sandbox (`wrongEnvironment`: Xcode and LocalTesting receipts are not the App Store's).
    public func verifyAppReceipt(_ base64: String, bundleId: String) async -> AppleVerificationResult<AppleAppReceipt> {
        let result = await receiptVerifier.verify(base64)
        guard case .valid(let receipt) = result else { return result }
        guard receipt.bundleId == bundleId else {
            return .invalid(.init(.wrongApp, "the receipt belongs to \(receipt.bundleId ?? "no app"), not \(bundleId)"))
        }
        guard receipt.environment != nil else {
            return .invalid(.init(.wrongEnvironment, "the receipt type is \(receipt.rawReceiptType ?? "missing"), not Production or Sandbox"))
        }
        return result
    }

    /// A signed app transaction (StoreKit's `AppTransaction` JWS), verified like a transaction:
    /// format, chain, OIDs and signature, then the app — its `bundleId`, and in production its
    /// `appAppleId` when one is configured (Apple's library always requires it there) — and its
    /// `receiptType`, which must be one of `environments`.
    public func verifyAppTransaction(_ jws: String, bundleId: String, appAppleId: Int64?,
                                     environments: Set<CommerceEnvironment>) async -> AppleVerificationResult<AppleAppTransactionPayload> {
        let result = await verifySignedData(jws, as: AppleAppTransactionPayload.self)
        guard case .valid(let transaction) = result else { return result }
        let production = transaction.rawReceiptType == AppleEnvironment.production.rawValue
        guard transaction.bundleId == bundleId, !production || appAppleId == nil || transaction.appAppleId == appAppleId else {
            return .invalid(.init(.wrongApp, "the app transaction is for \(transaction.bundleId ?? "no app"), not \(bundleId)"))
        }
        if let refusal = Self.check(environment: transaction.rawReceiptType, in: environments) { return .invalid(refusal) }
        return result
    }
}

extension AppleAppReceipt {
    /// The receipt read without any check of its signature, as Apple's `ReceiptUtility` reads it
    /// (for `souk apple verify-receipt` and the cross-check with Apple's library); never trusted.
    public static func unverified(_ base64: String) -> Result<AppleAppReceipt, AppleVerificationFailure> {
        guard let der = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !der.isEmpty else {
            return .failure(.init(.malformedReceipt, "the receipt is not base64"))
        }
        do {
            return .success(try parse(try AppleReceiptContainer(berEncoded: [UInt8](der)).content))
        } catch let malformed as AppleReceiptContainer.Malformed {
            return .failure(.init(.malformedReceipt, malformed.detail))
        } catch let malformed as Malformed {
            return .failure(.init(.malformedReceipt, malformed.detail))
        } catch {
            return .failure(.init(.malformedReceipt, "the receipt cannot be read"))
        }
    }
}
