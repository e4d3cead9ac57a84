import Crypto
import Foundation
import Testing
import X509
@testable import SoukIntegrations

/// The built-in Apple Root CA - G3 and Apple Inc. Root and the repository's copies are the published certificates.
@Suite struct AppleRootCertificatesTests {
    static let fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"
    static let repositoryCopy = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../certs/AppleRootCA-G3.cer").standardized

    static func hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test func builtInRootIsAppleRootCAG3() throws {
        #expect(Self.hex(AppleRootCertificates.appleRootCAG3) == Self.fingerprint)
        let certificate = try Certificate(derEncoded: [UInt8](AppleRootCertificates.appleRootCAG3))
        #expect(certificate.subject.description.contains("CN=Apple Root CA - G3"))
        #expect(certificate.notValidAfter > Date(timeIntervalSince1970: 2_187_000_000))  // 2039-04-30
    }

    @Test func repositoryCopyIsTheSameCertificate() throws {
        let copy = try Data(contentsOf: Self.repositoryCopy)
        #expect(Self.hex(copy) == Self.fingerprint)
        #expect(copy == AppleRootCertificates.appleRootCAG3)
    }

    static let appleIncFingerprint = "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"

    @Test func builtInReceiptRootIsAppleIncRootAndTheRepositoryCopy() throws {
        #expect(Self.hex(AppleRootCertificates.appleIncRoot) == Self.appleIncFingerprint)
        let copy = try Data(contentsOf: Self.repositoryCopy.deletingLastPathComponent().appendingPathComponent("AppleIncRootCertificate.cer"))
        #expect(Self.hex(copy) == Self.appleIncFingerprint)
        #expect(copy == AppleRootCertificates.appleIncRoot)
        let certificate = try Certificate(derEncoded: [UInt8](AppleRootCertificates.appleIncRoot))
        #expect(certificate.subject.description.contains("CN=Apple Root CA,"))
        #expect(certificate.notValidAfter > Date(timeIntervalSince1970: 2_054_400_000))  // 2035-02-09
    }

    @Test func receiptsTrustBothApplesRootsSignedDataOnlyG3() {
        let extra = Data([1, 2, 3])
        #expect(!AppleRootCertificates.trusted().contains(AppleRootCertificates.appleIncRoot))
        #expect(AppleRootCertificates.receiptRoots(adding: [extra, AppleRootCertificates.appleIncRoot])
            == [AppleRootCertificates.appleRootCAG3, AppleRootCertificates.appleIncRoot, extra])
    }

    @Test func configuredRootsAreAddedNeverInstead() {
        let extra = Data([1, 2, 3])
        #expect(AppleRootCertificates.trusted() == [AppleRootCertificates.appleRootCAG3])
        #expect(AppleRootCertificates.trusted(adding: [extra]) == [AppleRootCertificates.appleRootCAG3, extra])
        #expect(AppleRootCertificates.trusted(adding: [AppleRootCertificates.appleRootCAG3]) == [AppleRootCertificates.appleRootCAG3])
    }
}
