import ArgumentParser
import Foundation
import SoukCore
import SoukServe
import SoukTestSupport
import Testing
@testable import SoukCLI

/// `souk apple verify-transaction`: the verdict it prints, and its arguments.
@Suite struct AppleCommandTests {
    static let app = "com.example.reader"

    func verdict(_ jws: String, environments: Set<CommerceEnvironment> = [], roots: [String],
                 atNow: Bool = false) async throws -> [String: Any] {
        let verdict = try await AppleCommand.VerifyTransaction.verdict(for: jws, bundleId: Self.app, environments: environments,
                                                                        roots: roots, atNow: atNow)
        let object = try JSONSerialization.jsonObject(with: verdict.json)
        return try #require(object as? [String: Any])
    }

    @Test func validTransactionPrintsOKWithThePayload() async throws {
        let folder = try TemporaryFolder()
        let chain = try AppleTestChain.make()
        let root = try chain.writeRoot(in: URL(fileURLWithPath: folder.path))
        let signed = Date(timeIntervalSince1970: 1_760_000_000)
        let jws = chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p", transactionId: "2000000000000007",
                                                             environment: "Sandbox", purchaseDate: signed))
        let answer = try await verdict(jws, roots: [root])
        #expect(answer["valid"] as? Bool == true)
        #expect(answer["status"] as? String == "OK")
        let transaction = try #require(answer["transaction"] as? [String: Any])
        #expect(transaction["transactionId"] as? String == "2000000000000007")
        #expect(transaction["signedDate"] as? Int64 == 1_760_000_000_000)
        #expect(transaction["environment"] as? String == "Sandbox")
        let productionOnly = try await verdict(jws, environments: [.production], roots: [root])
        #expect(productionOnly["status"] as? String == "INVALID_ENVIRONMENT")
        #expect(productionOnly["reason"] as? String == "wrong-environment")
    }

    @Test func refusalPrintsApplesStatusAndSoukReason() async throws {
        let chain = try AppleTestChain.make(.init(leafHasAppleOID: false))
        let folder = try TemporaryFolder()
        let root = try chain.writeRoot(in: URL(fileURLWithPath: folder.path))
        let answer = try await verdict(chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p")), roots: [root])
        #expect(answer["valid"] as? Bool == false)
        #expect(answer["status"] as? String == "VERIFICATION_FAILURE")
        #expect(answer["reason"] as? String == "missing-leaf-oid")
        #expect(answer["transaction"] == nil)
        let untrusted = try await verdict(chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p")), roots: [])
        #expect(untrusted["reason"] as? String == "untrusted-chain")
    }

    @Test func expiredLeafPassesAtSignedDateAndFailsAtNow() async throws {
        let leafValidity = Date(timeIntervalSince1970: 1_609_459_200)...Date(timeIntervalSince1970: 1_688_169_600)  // 2021 … 2023-07
        let chain = try AppleTestChain.make(.init(leafValidity: leafValidity))
        let folder = try TemporaryFolder()
        let root = try chain.writeRoot(in: URL(fileURLWithPath: folder.path))
        let jws = chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p", purchaseDate: Date(timeIntervalSince1970: 1_650_000_000)))
        #expect(try await verdict(jws, roots: [root])["status"] as? String == "OK")
        #expect(try await verdict(jws, roots: [root], atNow: true)["reason"] as? String == "certificate-not-valid")
    }

    @Test func argumentsAreValidated() async throws {
        await #expect(throws: (any Error).self) {
            try await SoukCommand.run(["apple", "verify-transaction", "--bundle-id", Self.app, "--environment", "Xcode"])
        }
        await #expect(throws: (any Error).self) {
            try await SoukCommand.run(["apple", "verify-transaction", "--bundle-id", Self.app, "--at-now", "--at-signed-date"])
        }
        await #expect(throws: (any Error).self) {
            _ = try await AppleCommand.VerifyTransaction.verdict(for: "x", bundleId: Self.app, environments: [],
                                                                 roots: ["/nonexistent.cer"])
        }
    }
}
