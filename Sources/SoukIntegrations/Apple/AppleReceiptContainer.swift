import Foundation
import SwiftASN1
import X509

/// The PKCS#7 `SignedData` (RFC 2315 / RFC 5652) around an app receipt, read with swift-asn1's BER
/// parser: the App Store writes indefinite lengths and segmented OCTET STRINGs, which
/// swift-certificates' CMS types (DER only for the parts a receipt has) do not read.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OID (signedData), content [0] EXPLICIT SignedData }
/// SignedData  ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE { eContentType,
///                 eContent [0] EXPLICIT OCTET STRING }, certificates [0] IMPLICIT OPTIONAL,
///                 crls [1] IMPLICIT OPTIONAL, signerInfos SET OF SignerInfo }
/// SignerInfo  ::= SEQUENCE { version, sid IssuerAndSerialNumber, digestAlgorithm, signedAttrs [0]
///                 IMPLICIT OPTIONAL, signatureAlgorithm, signature OCTET STRING, unsignedAttrs [1] OPTIONAL }
/// ```
/// Nothing here is trusted: `AppleReceiptVerifier` checks the signer's chain and signature.
struct AppleReceiptContainer {
    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    static let sha1OID: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// The receipt payload (eContent, segments joined).
    var content: [UInt8]
    /// The certificates the container carries, in order.
    var certificates: [Certificate]
    var signerIssuer: DistinguishedName
    var signerSerialNumber: [UInt8]
    /// The signer's digest algorithm (SHA-1 on receipts signed until 2023, SHA-256 since).
    var digestAlgorithm: ASN1ObjectIdentifier
    /// The signer's signature algorithm: `rsaEncryption` on the App Store's receipts (the digest
    /// algorithm then names the hash), a full signature algorithm elsewhere.
    var signatureAlgorithm: ASN1ObjectIdentifier
    /// The DER SET the signature covers when the signer has signed attributes (RFC 5652 §5.4: the
    /// `[0] IMPLICIT` tag read as a SET); nil: the signature covers `content` itself (App Store receipts).
    var signedAttributes: [UInt8]?
    /// The `messageDigest` signed attribute, which must be the digest of `content`.
    var messageDigest: [UInt8]?
    var signature: [UInt8]

    struct Malformed: Error {
        var detail: String
        init(_ detail: String) { self.detail = detail }
    }

    init(berEncoded bytes: [UInt8]) throws {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw Malformed("the receipt is not BER-encoded ASN.1")
        }
        let contentInfo = try Self.children(root, "ContentInfo")
        guard contentInfo.count >= 2, (try? ASN1ObjectIdentifier(berEncoded: contentInfo[0])) == Self.signedDataOID else {
            throw Malformed("the receipt is not a PKCS#7 signedData container")
        }
        let signedData = try Self.children(try Self.explicit(contentInfo[1], "content"), "SignedData")
        guard signedData.count >= 4 else { throw Malformed("SignedData has fewer than 4 fields") }
        let encapsulated = try Self.children(signedData[2], "encapContentInfo")
        guard encapsulated.count >= 2 else { throw Malformed("the container holds no receipt payload") }
        content = try Self.octets(try Self.explicit(encapsulated[1], "eContent"))

        var certificates: [Certificate] = []
        for node in signedData.dropFirst(3).dropLast() where node.identifier == Self.tag0 {
            for certificate in try Self.children(node, "certificates") {
                guard let parsed = try? Certificate(derEncoded: certificate) else {
                    throw Malformed("a certificate of the container is not DER X.509")
                }
                certificates.append(parsed)
            }
        }
        self.certificates = certificates

        guard let signerInfos = signedData.last, signerInfos.identifier == .set,
              let signerInfo = try Self.children(signerInfos, "signerInfos").first else {
            throw Malformed("the container has no signer")
        }
        let signer = try Self.children(signerInfo, "SignerInfo")
        guard signer.count >= 5 else { throw Malformed("SignerInfo has fewer than 5 fields") }
        let sid = try Self.children(signer[1], "IssuerAndSerialNumber")
        guard sid.count >= 2, let issuer = try? DistinguishedName(derEncoded: sid[0]),
              case .primitive(let serial) = sid[1].content else {
            throw Malformed("the signer is not named by issuer and serial number")
        }
        signerIssuer = issuer
        signerSerialNumber = Self.unsigned(Array(serial))
        digestAlgorithm = try Self.algorithm(signer[2], "digestAlgorithm")

        var index = 3
        if signer[index].identifier == Self.tag0 {
            // The signature covers the attributes' DER with the SET tag in place of [0] IMPLICIT.
            var encoded = Array(signer[index].encodedBytes)
            encoded[0] = 0x31
            signedAttributes = encoded
            var digest: [UInt8]?
            for attribute in try Self.children(signer[index], "signedAttrs") {
                let fields = try Self.children(attribute, "Attribute")
                if fields.count >= 2, (try? ASN1ObjectIdentifier(berEncoded: fields[0])) == Self.messageDigestOID,
                   let value = try Self.children(fields[1], "attrValues").first {
                    digest = try Self.octets(value)
                }
            }
            messageDigest = digest
            index += 1
        } else {
            signedAttributes = nil
            messageDigest = nil
        }
        guard index + 1 < signer.count else { throw Malformed("SignerInfo has no signature") }
        signatureAlgorithm = try Self.algorithm(signer[index], "signatureAlgorithm")
        signature = try Self.octets(signer[index + 1])
    }

    /// The container's certificate that the signer names.
    var signerCertificate: Certificate? {
        certificates.first { $0.issuer == signerIssuer && Self.unsigned(Array($0.serialNumber.bytes)) == signerSerialNumber }
    }

    private static func children(_ node: ASN1Node, _ name: String) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw Malformed("\(name) is not constructed") }
        return Array(nodes)
    }

    private static func explicit(_ node: ASN1Node, _ name: String) throws -> ASN1Node {
        let inner = try children(node, name)
        guard node.identifier == tag0, inner.count == 1 else { throw Malformed("\(name) is not [0] EXPLICIT") }
        return inner[0]
    }

    private static func algorithm(_ node: ASN1Node, _ name: String) throws -> ASN1ObjectIdentifier {
        guard let first = try children(node, name).first, let oid = try? ASN1ObjectIdentifier(berEncoded: first) else {
            throw Malformed("\(name) is not an AlgorithmIdentifier")
        }
        return oid
    }

    /// An OCTET STRING's value, its BER segments joined.
    private static func octets(_ node: ASN1Node) throws -> [UInt8] {
        guard let value = try? ASN1OctetString(berEncoded: node) else { throw Malformed("an OCTET STRING was expected") }
        return Array(value.bytes)
    }

    /// A positive INTEGER's bytes without the leading zero that keeps it positive.
    private static func unsigned(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }
}
