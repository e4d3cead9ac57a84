import ArgumentParser
import Foundation
import SoukCore
import SoukIntegrations

extension AppleCommand {
    /// `souk apple verify-app-transaction`: verify a signed app transaction (StoreKit's
    /// `AppTransaction`, JWS on stdin) as `POST /commerce/<app>/app-transaction` does, for operators
    /// and for the cross-check with Apple's `SignedDataVerifier.verify_and_decode_app_transaction`.
    struct VerifyAppTransaction: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signed app transaction (JWS on stdin) and print a JSON verdict; exits 1 when it is invalid.")

        @Option(help: "The app's bundle id.") var bundleId: String
        @Option(help: "The app's Apple ID; a Production app transaction must name it when given.") var appAppleId: Int64?
        @Option(help: "Accepted environment, Production or Sandbox (repeatable; default both).")
        var environment: [String] = []
        @Option(help: "A DER root certificate trusted in addition to Apple Root CA - G3 (repeatable; SOUK_APPLE_ROOT_CERTIFICATES adds more).")
        var root: [String] = []

        func validate() throws {
            for name in environment where CommerceEnvironment(rawValue: name) == nil {
                throw ValidationError("--environment must be Production or Sandbox, got '\(name)'")
            }
        }

        func run() async throws {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            let configured = (ProcessInfo.processInfo.environment["SOUK_APPLE_ROOT_CERTIFICATES"] ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let verifier = try AppleSignedDataVerifier(additionalRootCertificatePaths: root + configured)
            let accepted = environment.isEmpty ? Set(CommerceEnvironment.allCases) : Set(environment.compactMap(CommerceEnvironment.init(rawValue:)))
            let verdict: AppleAppTransactionVerdict
            switch await verifier.verifyAppTransaction(input.trimmingCharacters(in: .whitespacesAndNewlines), bundleId: bundleId,
                                                       appAppleId: appAppleId, environments: accepted) {
            case .valid(let payload):
                verdict = AppleAppTransactionVerdict(valid: true, status: "OK", appTransaction: payload)
            case .invalid(let failure):
                verdict = AppleAppTransactionVerdict(valid: false, status: failure.appleStatus, reason: failure.reason.rawValue,
                                                     detail: failure.detail)
            }
            print(String(decoding: verdict.json, as: UTF8.self))
            if !verdict.valid { throw ExitCode(1) }
        }
    }
}

/// `souk apple verify-app-transaction`'s answer, shaped like `verify-transaction`'s.
struct AppleAppTransactionVerdict: Encodable {
    var valid: Bool
    var status: String
    var reason: String?
    var detail: String?
    var appTransaction: AppleAppTransactionPayload?

    var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        return (try? encoder.encode(self)) ?? Data(#"{"valid":false,"status":"ENCODING_FAILURE"}"#.utf8)
    }
}
