import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukTestSupport
import Testing
import _CryptoExtras

/// The license envelope is no padding oracle: whatever fails from the RSA step on answers the
/// same 400 with the same body bytes, on both license endpoints.
@Suite struct LicenseEnvelopeTests {
    /// An envelope built by hand: `material` sealed with the marketplace's key, `plaintext`
    /// encrypted with the AES key and IV in it (without PKCS#7 padding when `noPadding`).
    static func envelope(_ licensing: LicenseClient, plaintext: [UInt8], noPadding: Bool = false,
                         material transform: ([UInt8]) -> [UInt8] = { $0 }) throws -> (request: String, key: String) {
        let key = SymmetricKey(size: .bits128)
        let iv = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let ciphertext = try AES._CBC.encrypt(plaintext, using: key, iv: try AES._CBC.IV(ivBytes: iv), noPadding: noPadding)
        let material = transform(key.withUnsafeBytes { Array($0) } + iv)
        let sealed = try licensing.encryptionKey.encrypt(material, padding: .PKCS1_OAEP_SHA256)
        return (Data(ciphertext).base64EncodedString(), Data(sealed).base64EncodedString())
    }

    @Test func everyFailureAfterTheRSAStepAnswersTheSameBytes() async throws {
        try await ServerFixture.with(.sqlite, prepare: AppDataTests.prepare) { client in
            let licensing = try await LicenseClient.make(client)
            let create = DevelopmentLicenseRequest(requestId: 1, deviceId: "ab", action: .create, appleItemIds: [1]).json
            let renew = DevelopmentLicenseRequest(requestId: 1, deviceId: "ab", action: .renew, licenseIds: [1]).json
            let foreign = try LicenseCrypto.seal(request: create, for: try _RSA.Encryption.PrivateKey(keySize: .bits3072).publicKey)
            let whole = try Self.envelope(licensing, plaintext: create)
            let valid = try licensing.sealed(DevelopmentLicenseRequest(requestId: 1, deviceId: "ab", action: .create, appleItemIds: [1]))
            let envelopes: [(name: String, request: String, key: String)] = [
                ("bad padding", try Self.envelope(licensing, plaintext: [UInt8](repeating: 0, count: 16), noPadding: true)),
                ("bad ciphertext length", (Data(try #require(Data(base64Encoded: whole.request)).prefix(20)).base64EncodedString(), whole.key)),
                ("undecodable content", try Self.envelope(licensing, plaintext: Array("hello, not JSON".utf8))),
                ("the other endpoint's request", try Self.envelope(licensing, plaintext: renew)),
                ("a short key and IV", try Self.envelope(licensing, plaintext: create, material: { Array($0.prefix(31)) })),
                ("another marketplace's key", (Data(foreign.request).base64EncodedString(), Data(foreign.licenseKey).base64EncodedString())),
                ("a licenseKey that is not RSA-OAEP", (valid.request, Data((0..<384).map { _ in UInt8.random(in: 0...255) }).base64EncodedString())),
            ].map { ($0.0, $0.1.request, $0.1.key) }

            var bodies: Set<[UInt8]> = []
            for envelope in envelopes {
                let response = try await licensing.post("/marketplace-kit/v1/license",
                    #"{"licenseRequest": "\#(envelope.request)", "licenseKey": "\#(envelope.key)", "appsById": {"1": {}}}"#)
                #expect(response.status == .badRequest, "\(envelope.name)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(envelope.name)")
                bodies.insert(Array(buffer: response.body))
            }
            #expect(bodies.count == 1)
            #expect(!String(decoding: bodies.first ?? [], as: UTF8.self).contains("padding"))

            var renewals: Set<[UInt8]> = []
            for envelope in envelopes where envelope.name != "the other endpoint's request" {
                let response = try await licensing.post("/marketplace-kit/v1/license/renew",
                    #"{"renewalRequest": "\#(envelope.request)", "licenseKey": "\#(envelope.key)"}"#)
                #expect(response.status == .badRequest, "\(envelope.name)")
                renewals.insert(Array(buffer: response.body))
            }
            let created = try Self.envelope(licensing, plaintext: create)
            let crossed = try await licensing.post("/marketplace-kit/v1/license/renew",
                #"{"renewalRequest": "\#(created.request)", "licenseKey": "\#(created.key)"}"#)
            renewals.insert(Array(buffer: crossed.body))
            #expect(renewals == bodies)

            // The same envelope built right is licensed: the test's own construction is sound.
            let right = try Self.envelope(licensing, plaintext: create)
            let licensed = try await licensing.post("/marketplace-kit/v1/license",
                #"{"licenseRequest": "\#(right.request)", "licenseKey": "\#(right.key)", "appsById": {"1": {}}}"#)
            #expect(licensed.status == .ok)
        }
    }
}
