import Crypto
import Foundation
import SwiftASN1
import X509

/// An Apple-shaped signing chain made in the tests: a root, an intermediate carrying
/// Apple's WWDR OID 1.2.840.113635.100.6.2.1 and a leaf carrying the receipt-signing OID
/// 1.2.840.113635.100.6.11.1, all P-256, signing StoreKit 2 JWS the way the App Store does
/// (`alg` ES256, `x5c` = [leaf, intermediate, root] in base64 DER).
///
/// ```swift
/// let chain = try AppleTestChain.make()
/// let rootPath = try chain.writeRoot(in: directory)      // config.commerce.appleRootCertificates = [rootPath]
/// let jws = chain.signTransaction(AppleTestTransaction(bundleId: "com.example.reader",
///                                                      productId: "com.example.reader.monthly",
///                                                      type: .autoRenewable, expiresDate: clock.now + 30 * 86_400))
/// ```
///
/// Knobs for the negative cases: `Options` (an intermediate or a leaf without its OID, a leaf valid
/// only for given dates), `sign(_:alg:x5c:signingKey:)` (another `alg`, a two-certificate `x5c`,
/// another key: a bad signature). A chain that is not configured is the "wrong root".
public struct AppleTestChain: Sendable {
    public struct Options: Sendable {
        public var intermediateHasAppleOID: Bool
        public var leafHasAppleOID: Bool
        /// When the leaf is valid (default 2020-01-01 … 2040-01-01, like the root and intermediate).
        public var leafValidity: ClosedRange<Date>

        public init(intermediateHasAppleOID: Bool = true, leafHasAppleOID: Bool = true,
                    leafValidity: ClosedRange<Date> = AppleTestChain.defaultValidity) {
            self.intermediateHasAppleOID = intermediateHasAppleOID
            self.leafHasAppleOID = leafHasAppleOID
            self.leafValidity = leafValidity
        }
    }

    /// 2020-01-01 … 2040-01-01: covers today and `TestClock`'s default start (2027-01-15).
    public static let defaultValidity = Date(timeIntervalSince1970: 1_577_836_800)...Date(timeIntervalSince1970: 2_208_988_800)

    public static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    public static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// The root (DER): what `appleRootCertificates` names.
    public let rootDER: Data
    public let intermediateDER: Data
    public let leafDER: Data
    /// The leaf's key, which signs the JWS.
    public let leafKey: P256.Signing.PrivateKey

    /// A fresh chain (new keys every time).
    public static func make(_ options: Options = Options()) throws -> AppleTestChain {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CommonName("Souk Test Apple Root CA - G3")
            OrganizationalUnitName("Souk Test Certification Authority")
            OrganizationName("Souk Tests")
            CountryName("US")
        }
        let intermediateName = try DistinguishedName {
            CommonName("Souk Test Apple Worldwide Developer Relations Certification Authority")
            OrganizationalUnitName("G6")
            OrganizationName("Souk Tests")
            CountryName("US")
        }
        let leafName = try DistinguishedName {
            CommonName("Souk Test Prod ECC Mac App Store and iTunes Store Receipt Signing")
            OrganizationalUnitName("Apple Worldwide Developer Relations")
            OrganizationName("Souk Tests")
            CountryName("US")
        }
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: defaultValidity.lowerBound, notValidAfter: defaultValidity.upperBound,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(keyIdentifier: keyIdentifier(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey))
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: defaultValidity.lowerBound, notValidAfter: defaultValidity.upperBound,
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(keyIdentifier: keyIdentifier(intermediateKey.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: keyIdentifier(rootKey.publicKey))
                if options.intermediateHasAppleOID {
                    Certificate.Extension(oid: intermediateOID, critical: false, value: [0x05, 0x00])
                }
            },
            issuerPrivateKey: .init(rootKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: options.leafValidity.lowerBound, notValidAfter: options.leafValidity.upperBound,
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                BasicConstraints.notCertificateAuthority
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(keyIdentifier: keyIdentifier(leafKey.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: keyIdentifier(intermediateKey.publicKey))
                if options.leafHasAppleOID {
                    Certificate.Extension(oid: leafOID, critical: false, value: [0x05, 0x00])
                }
            },
            issuerPrivateKey: .init(intermediateKey))
        return AppleTestChain(rootDER: try der(root), intermediateDER: try der(intermediate), leafDER: try der(leaf), leafKey: leafKey)
    }

    /// Writes the root's DER to `directory/name` and answers the path, for `appleRootCertificates`.
    @discardableResult
    public func writeRoot(in directory: URL, name: String = "apple-test-root-\(UUID().uuidString).cer") throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try rootDER.write(to: url)
        return url.path
    }

    /// The App Store's `x5c`: leaf, intermediate, root.
    public var x5c: [Data] { [leafDER, intermediateDER, rootDER] }

    /// A StoreKit 2 signed transaction (JWS) of `transaction`.
    public func signTransaction(_ transaction: AppleTestTransaction) -> String {
        sign(transaction.jsonData)
    }

    /// Any payload, encoded with Apple's conventions (dates in whole milliseconds since 1970).
    public func sign(_ payload: some Encodable, alg: String = "ES256", x5c: [Data]? = nil,
                     signingKey: P256.Signing.PrivateKey? = nil) -> String {
        sign(AppleTestTransaction.encode(payload), alg: alg, x5c: x5c, signingKey: signingKey)
    }

    /// A compact JWS over `payloadJSON`: header `{"alg", "x5c"}`, ES256 with the leaf's key unless
    /// `signingKey` is given (a bad signature), `x5c` = `self.x5c` unless given.
    public func sign(_ payloadJSON: Data, alg: String = "ES256", x5c: [Data]? = nil,
                     signingKey: P256.Signing.PrivateKey? = nil) -> String {
        let header = Header(alg: alg, x5c: (x5c ?? self.x5c).map { $0.base64EncodedString() })
        let signingInput = Self.base64URL(AppleTestTransaction.encode(header)) + "." + Self.base64URL(payloadJSON)
        let key = signingKey ?? leafKey
        let signature: Data
        do {
            signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        } catch {
            preconditionFailure("P-256 signing failed: \(error)")
        }
        return signingInput + "." + Self.base64URL(signature)
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private struct Header: Encodable {
        var alg: String
        var x5c: [String]
    }

    private static func keyIdentifier(_ key: P256.Signing.PublicKey) -> ArraySlice<UInt8> {
        ArraySlice(Insecure.SHA1.hash(data: key.x963Representation))
    }

    private static func der(_ certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }
}
