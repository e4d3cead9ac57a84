import ArgumentParser
import Foundation
import SoukCore
import SoukIntegrations

extension AppleCommand {
    /// `souk apple verify-receipt`: read a StoreKit 1 app receipt (base64 PKCS#7 on stdin) as the
    /// server does (docs/commerce.md "App receipts") and print what it holds and whether it
    /// verifies, for operators and for the cross-check with Apple's `ReceiptUtility`
    /// (`scripts/apple-verdicts.sh`). Needs no database and no network.
    struct VerifyReceipt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read and verify an app receipt (base64 on stdin); print a JSON verdict; exits 1 when it does not verify.")

        @Option(help: "The app's bundle id the receipt must belong to.") var bundleId: String
        @Option(help: "A DER root certificate trusted in addition to Apple's roots (repeatable; SOUK_APPLE_ROOT_CERTIFICATES adds more).")
        var root: [String] = []

        func run() async throws {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            let configured = (ProcessInfo.processInfo.environment["SOUK_APPLE_ROOT_CERTIFICATES"] ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let verdict = try await Self.verdict(for: input.trimmingCharacters(in: .whitespacesAndNewlines), bundleId: bundleId,
                                                 roots: root + configured)
            print(String(decoding: verdict.json, as: UTF8.self))
            if !verdict.valid { throw ExitCode(1) }
        }

        /// The receipt as read without trust (`parsed`, `transactionId` as Apple's `ReceiptUtility`
        /// takes it) and the verdict on it. Throws only when a root cannot be read.
        static func verdict(for receipt: String, bundleId: String, roots: [String]) async throws -> AppleReceiptVerdict {
            let verifier = try AppleSignedDataVerifier(additionalRootCertificatePaths: roots)
            var verdict = AppleReceiptVerdict(valid: false, parsed: false)
            if case .success(let read) = AppleAppReceipt.unverified(receipt) {
                verdict.parsed = true
                verdict.transactionId = read.transactionIdForLookUp
                verdict.bundleId = read.bundleId
                verdict.receiptType = read.rawReceiptType
                verdict.inAppTransactionIds = read.inAppPurchases.compactMap { $0.transactionId ?? $0.originalTransactionId }
            }
            switch await verifier.verifyAppReceipt(receipt, bundleId: bundleId) {
            case .valid:
                verdict.valid = true
            case .invalid(let failure):
                verdict.reason = failure.reason.rawValue
                verdict.detail = failure.detail
            }
            return verdict
        }
    }
}

/// `souk apple verify-receipt`'s answer: `parsed` the receipt could be read at all, `transactionId`
/// the id Apple's `ReceiptUtility` takes for the App Store Server API (null: no in-app purchase),
/// `valid` its signature, chain, bundle id and type verify, else `reason` and `detail`.
struct AppleReceiptVerdict: Encodable {
    var valid: Bool
    var parsed: Bool
    var transactionId: String?
    var inAppTransactionIds: [String]?
    var bundleId: String?
    var receiptType: String?
    var reason: String?
    var detail: String?

    var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data(#"{"valid":false,"parsed":false}"#.utf8)
    }
}
