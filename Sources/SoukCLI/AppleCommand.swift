import ArgumentParser
import Foundation
import SoukCore
import SoukIntegrations

/// `souk apple verify-transaction`: verify one StoreKit 2 signed transaction exactly as the
/// server does (docs/commerce.md "Apple"), for operators and for the cross-check against Apple's
/// own library (`scripts/apple-verdicts.sh`). Needs no database and no network.
struct AppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple", abstract: "Work with App Store signed data.",
        subcommands: [VerifyTransaction.self, VerifyReceipt.self, VerifyAppTransaction.self, SignOffer.self])

    struct VerifyTransaction: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signed transaction (JWS on stdin) and print a JSON verdict; exits 1 when it is invalid.")

        @Option(help: "The app's bundle id the transaction must belong to.") var bundleId: String
        @Option(help: "Accepted environment, Production or Sandbox (repeatable; default both).")
        var environment: [String] = []
        @Option(help: "A DER root certificate trusted in addition to Apple Root CA - G3 (repeatable; SOUK_APPLE_ROOT_CERTIFICATES adds more).")
        var root: [String] = []
        @Flag(help: "Judge certificates at the payload's signedDate (the default, as the server does).")
        var atSignedDate = false
        @Flag(help: "Judge certificates at the current time instead (a leaf expired since is refused).")
        var atNow = false

        func validate() throws {
            if atSignedDate && atNow { throw ValidationError("--at-signed-date and --at-now exclude each other") }
            for name in environment where CommerceEnvironment(rawValue: name) == nil {
                throw ValidationError("--environment must be Production or Sandbox, got '\(name)'")
            }
        }

        func run() async throws {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            let configured = (ProcessInfo.processInfo.environment["SOUK_APPLE_ROOT_CERTIFICATES"] ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let verdict = try await Self.verdict(
                for: input.trimmingCharacters(in: .whitespacesAndNewlines), bundleId: bundleId,
                environments: Set(environment.compactMap(CommerceEnvironment.init(rawValue:))), roots: root + configured, atNow: atNow)
            print(String(decoding: verdict.json, as: UTF8.self))
            if !verdict.valid { throw ExitCode(1) }
        }

        /// The verdict on one JWS (empty `environments`: both). Throws only when a root cannot be read.
        static func verdict(for jws: String, bundleId: String, environments: Set<CommerceEnvironment>, roots: [String],
                            atNow: Bool = false) async throws -> AppleVerdict {
            let verifier = try AppleSignedDataVerifier(additionalRootCertificatePaths: roots, validationTime: atNow ? .now : .signedDate)
            let accepted = environments.isEmpty ? Set(CommerceEnvironment.allCases) : environments
            switch await verifier.verifyTransaction(jws, bundleId: bundleId, environments: accepted) {
            case .valid(let transaction):
                return AppleVerdict(valid: true, status: "OK", transaction: transaction)
            case .invalid(let failure):
                return AppleVerdict(valid: false, status: failure.appleStatus, reason: failure.reason.rawValue, detail: failure.detail)
            }
        }
    }
}

/// `souk apple verify-transaction`'s answer. `status` is `OK` or the `VerificationStatus` Apple's
/// library reports for the same input; `reason` the precise check that failed; `transaction` the
/// decoded payload when valid (dates in milliseconds, as Apple writes them).
struct AppleVerdict: Encodable {
    var valid: Bool
    var status: String
    var reason: String?
    var detail: String?
    var transaction: AppleTransactionPayload?

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
