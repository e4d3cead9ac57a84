import Crypto
import Foundation
import SwiftASN1
@_spi(CMS) import X509

/// A StoreKit 1 app receipt made in the tests, in the format Apple documents ("Validating receipts
/// on the device"): a SET of `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER,
/// value OCTET STRING }` — receipt type (0), bundle id (2, UTF8String), app version (3), creation
/// date (12, IA5String RFC 3339), in-app purchases (17: each a SET of 1701 quantity, 1702 product
/// id, 1703 transaction id, 1705 original transaction id, 1704/1706 dates, 1708 expiry),
/// original purchase date (18), original app version (19) — signed as PKCS#7 signedData with
/// swift-certificates' `CMS.sign` by an `AppleTestChain`'s leaf (the container carries leaf,
/// intermediate and root, as the App Store's receipts do).
///
/// ```swift
/// let receipt = AppleTestReceipt(bundleId: "com.example.reader", inAppPurchases: [.init(productId: "com.example.reader.book")])
/// let base64 = try receipt.signed(by: chain)
/// ```
public struct AppleTestReceipt: Sendable {
    public struct InAppPurchase: Sendable {
        public var productId: String
        public var transactionId: String?
        public var originalTransactionId: String?
        public var purchaseDate: Date
        public var expiresDate: Date?
        public var quantity: Int

        /// `transactionId` defaults to a fresh random id, `originalTransactionId` to it.
        public init(productId: String, transactionId: String? = AppleTestTransaction.randomId(), originalTransactionId: String? = nil,
                    purchaseDate: Date = Date(), expiresDate: Date? = nil, quantity: Int = 1) {
            self.productId = productId
            self.transactionId = transactionId
            self.originalTransactionId = originalTransactionId ?? transactionId
            self.purchaseDate = purchaseDate
            self.expiresDate = expiresDate
            self.quantity = quantity
        }
    }

    public var bundleId: String
    /// `Production`, `ProductionSandbox`, or anything else for the negative cases.
    public var receiptType: String
    public var creationDate: Date
    public var applicationVersion: String
    public var originalApplicationVersion: String
    public var originalPurchaseDate: Date
    public var inAppPurchases: [InAppPurchase]

    public init(bundleId: String, receiptType: String = "Production", creationDate: Date = Date(), applicationVersion: String = "2.0",
                originalApplicationVersion: String = "1.0", originalPurchaseDate: Date = Date(timeIntervalSince1970: 1_600_000_000),
                inAppPurchases: [InAppPurchase] = []) {
        self.bundleId = bundleId
        self.receiptType = receiptType
        self.creationDate = creationDate
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.inAppPurchases = inAppPurchases
    }

    /// The receipt's payload (DER; attributes in the order above).
    public func payload() throws -> [UInt8] {
        var attributes: [(Int, [UInt8])] = [
            (0, try Self.utf8(receiptType)), (2, try Self.utf8(bundleId)), (3, try Self.utf8(applicationVersion)),
            (12, try Self.date(creationDate)),
        ]
        for purchase in inAppPurchases {
            var fields: [(Int, [UInt8])] = [(1701, try Self.integer(purchase.quantity)), (1702, try Self.utf8(purchase.productId))]
            if let id = purchase.transactionId { fields.append((1703, try Self.utf8(id))) }
            fields.append((1704, try Self.date(purchase.purchaseDate)))
            if let id = purchase.originalTransactionId { fields.append((1705, try Self.utf8(id))) }
            fields.append((1706, try Self.date(purchase.purchaseDate)))
            if let expires = purchase.expiresDate { fields.append((1708, try Self.date(expires))) }
            attributes.append((17, try Self.attributeSet(fields)))
        }
        attributes += [(18, try Self.date(originalPurchaseDate)), (19, try Self.utf8(originalApplicationVersion))]
        return try Self.attributeSet(attributes)
    }

    /// The base64 PKCS#7 receipt, signed by `chain`'s leaf (ECDSA P-256 with SHA-256), or by
    /// `signingKey` with the leaf's certificate (a bad signature); with `signedAttributes`, the
    /// signature covers content-type, message-digest and signing-time attributes (RFC 5652 §5.4).
    public func signed(by chain: AppleTestChain, signingKey: P256.Signing.PrivateKey? = nil, signedAttributes: Bool = false) throws -> String {
        let leaf = try Certificate(derEncoded: [UInt8](chain.leafDER))
        let others = try [chain.intermediateDER, chain.rootDER].map { try Certificate(derEncoded: [UInt8]($0)) }
        let signed = try CMS.sign(try payload(), signatureAlgorithm: .ecdsaWithSHA256, additionalIntermediateCertificates: others,
                                  certificate: leaf, privateKey: Certificate.PrivateKey(signingKey ?? chain.leafKey),
                                  signingTime: signedAttributes ? creationDate : nil, detached: false)
        return Data(signed).base64EncodedString()
    }

    /// The same receipt re-encoded as the App Store and Xcode write receipts on devices: the
    /// ContentInfo, SignedData and encapsulated content with indefinite lengths, and the payload
    /// as a constructed OCTET STRING in 100-byte segments (BER, not DER). The signature, over the
    /// payload's bytes, still verifies.
    public static func indefiniteLengths(_ base64: String) throws -> String {
        let root = try BER.parse([UInt8](Data(base64Encoded: base64) ?? Data()))
        return Data(try indefinite(root, depth: 0)).base64EncodedString()
    }

    private static func indefinite(_ node: ASN1Node, depth: Int) throws -> [UInt8] {
        switch node.content {
        case .primitive(let bytes) where node.identifier == .octetString && depth == 5:
            var segments: [UInt8] = [0x24, 0x80]
            var rest = bytes[...]
            while !rest.isEmpty {
                var serializer = DER.Serializer()
                try serializer.serialize(ASN1OctetString(contentBytes: rest.prefix(100)))
                segments += serializer.serializedBytes
                rest = rest.dropFirst(100)
            }
            return segments + [0, 0]
        case .constructed(let children) where depth < 5 && node.identifier != .set && !(depth == 3 && node.identifier.tagClass == .contextSpecific):
            // ContentInfo (0), its [0] (1), SignedData (2), encapContentInfo (3) and its [0] (4); not the certificates.
            var bytes = Array(node.encodedBytes.prefix(1)) + [0x80]
            for child in children { bytes += try indefinite(child, depth: depth + 1) }
            return bytes + [0, 0]
        default:
            return Array(node.encodedBytes)
        }
    }

    static func attributeSet(_ attributes: [(Int, [UInt8])]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        // Apple does not sort a receipt's SET (DER would): the attributes stay in the given order.
        try serializer.appendConstructedNode(identifier: .set) { set in
            for (type, value) in attributes {
                try set.appendConstructedNode(identifier: .sequence) { sequence in
                    try sequence.serialize(type)
                    try sequence.serialize(1)
                    try sequence.serialize(ASN1OctetString(contentBytes: value[...]))
                }
            }
        }
        return serializer.serializedBytes
    }

    static func utf8(_ text: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1UTF8String(text))
        return serializer.serializedBytes
    }

    static func integer(_ value: Int) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes
    }

    static func date(_ date: Date) throws -> [UInt8] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var serializer = DER.Serializer()
        try serializer.serialize(try ASN1IA5String(formatter.string(from: date)))
        return serializer.serializedBytes
    }
}
