import Foundation
import SoukCore
import SwiftASN1

/// A StoreKit 1 app receipt's payload, as Apple's "Validating receipts on the device" documents it:
/// a SET of `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`,
/// each value itself DER (strings UTF8String or IA5String, dates RFC 3339 in an IA5String). An
/// in-app purchase (type 17) is such a SET again. Only the fields Souk uses are kept; unknown
/// types are skipped, as Apple adds new ones.
public struct AppleAppReceipt: Sendable, Equatable {
    /// Type 0: `Production`, `ProductionSandbox`, `ProductionVPP`, `ProductionVPPSandbox`, `Xcode`…
    public var rawReceiptType: String?
    /// Type 2.
    public var bundleId: String?
    /// Type 3.
    public var applicationVersion: String?
    /// Type 12: when the App Store made (and signed) the receipt.
    public var creationDate: Date?
    /// Type 18: when the app was first bought or downloaded.
    public var originalPurchaseDate: Date?
    /// Type 19.
    public var originalApplicationVersion: String?
    /// Type 17, in the receipt's order.
    public var inAppPurchases: [AppleReceiptInAppPurchase] = []

    public init() {}

    /// The environment the receipt type names; nil for one Apple never signs for a server
    /// (`Xcode`, `LocalTesting`) or a type that is missing or unknown.
    public var environment: CommerceEnvironment? {
        switch rawReceiptType {
        case "Production", "ProductionVPP": .production
        case "ProductionSandbox", "ProductionVPPSandbox": .sandbox
        default: nil
        }
    }

    /// The id Apple's `ReceiptUtility` and `AppReceiptVerifier` take for the App Store Server API:
    /// the first in-app purchase's transaction id (1703), else its original transaction id (1705);
    /// nil when the receipt holds no in-app purchase.
    public var transactionIdForLookUp: String? {
        inAppPurchases.lazy.compactMap { $0.transactionId ?? $0.originalTransactionId }.first
    }
}

/// One in-app purchase receipt (attribute type 17 of an app receipt).
public struct AppleReceiptInAppPurchase: Sendable, Equatable {
    /// 1701.
    public var quantity: Int64?
    /// 1702.
    public var productId: String?
    /// 1703.
    public var transactionId: String?
    /// 1704.
    public var purchaseDate: Date?
    /// 1705.
    public var originalTransactionId: String?
    /// 1706.
    public var originalPurchaseDate: Date?
    /// 1708.
    public var expiresDate: Date?
    /// 1712.
    public var cancellationDate: Date?

    public init() {}
}

extension AppleAppReceipt {
    /// Why a payload could not be read.
    struct Malformed: Error {
        var detail: String
        init(_ detail: String) { self.detail = detail }
    }

    /// Reads the payload (the PKCS#7 container's content). Xcode wraps it in one more OCTET STRING.
    static func parse(_ payload: [UInt8]) throws -> AppleAppReceipt {
        var receipt = AppleAppReceipt()
        for attribute in try attributes(payload) {
            switch attribute.type {
            case 0: receipt.rawReceiptType = try string(attribute.value)
            case 2: receipt.bundleId = try string(attribute.value)
            case 3: receipt.applicationVersion = try string(attribute.value)
            case 12: receipt.creationDate = try date(attribute.value)
            case 17: receipt.inAppPurchases.append(try inAppPurchase(attribute.value))
            case 18: receipt.originalPurchaseDate = try date(attribute.value)
            case 19: receipt.originalApplicationVersion = try string(attribute.value)
            default: continue
            }
        }
        return receipt
    }

    static func inAppPurchase(_ bytes: [UInt8]) throws -> AppleReceiptInAppPurchase {
        var purchase = AppleReceiptInAppPurchase()
        for attribute in try attributes(bytes) {
            switch attribute.type {
            case 1701: purchase.quantity = try integer(attribute.value)
            case 1702: purchase.productId = try string(attribute.value)
            case 1703: purchase.transactionId = try string(attribute.value)
            case 1704: purchase.purchaseDate = try date(attribute.value)
            case 1705: purchase.originalTransactionId = try string(attribute.value)
            case 1706: purchase.originalPurchaseDate = try date(attribute.value)
            case 1708: purchase.expiresDate = try date(attribute.value)
            case 1712: purchase.cancellationDate = try date(attribute.value)
            default: continue
            }
        }
        return purchase
    }

    struct Attribute {
        var type: Int64
        var value: [UInt8]
    }

    static func attributes(_ bytes: [UInt8]) throws -> [Attribute] {
        var node = try parse(bytes, "the receipt payload is not ASN.1")
        if node.identifier == .octetString {
            node = try parse(Array(try ASN1OctetString(berEncoded: node).bytes), "the wrapped receipt payload is not ASN.1")
        }
        guard node.identifier == .set, case .constructed(let elements) = node.content else {
            throw Malformed("the receipt payload is not a SET of attributes")
        }
        return try elements.map { (element: ASN1Node) throws -> Attribute in
            do {
                return try BER.sequence(element, identifier: .sequence) { nodes in
                    guard let typeNode = nodes.next(), nodes.next() != nil, let valueNode = nodes.next() else {
                        throw Malformed("a receipt attribute is not (type, version, value)")
                    }
                    while nodes.next() != nil {}
                    let type = try Int64(berEncoded: typeNode, withIdentifier: .integer)
                    return Attribute(type: type, value: Array(try ASN1OctetString(berEncoded: valueNode).bytes))
                }
            } catch let malformed as Malformed {
                throw malformed
            } catch {
                throw Malformed("a receipt attribute is not (INTEGER, INTEGER, OCTET STRING)")
            }
        }
    }

    static func parse(_ bytes: [UInt8], _ detail: String) throws -> ASN1Node {
        do {
            return try BER.parse(bytes)
        } catch {
            throw Malformed(detail)
        }
    }

    /// Apple writes strings as UTF8String, IA5String or (rarely) PrintableString.
    static func string(_ bytes: [UInt8]) throws -> String {
        let node = try parse(bytes, "a receipt string is not ASN.1")
        let content: ArraySlice<UInt8>
        do {
            switch node.identifier {
            case .utf8String: content = try ASN1UTF8String(berEncoded: node).bytes
            case .ia5String: content = try ASN1IA5String(berEncoded: node).bytes
            case .printableString: content = try ASN1PrintableString(berEncoded: node).bytes
            default: throw Malformed("a receipt string is not a UTF8String, IA5String or PrintableString")
            }
        } catch let malformed as Malformed {
            throw malformed
        } catch {
            throw Malformed("a receipt string cannot be read")
        }
        guard let text = String(bytes: content, encoding: .utf8) else { throw Malformed("a receipt string is not UTF-8") }
        return text
    }

    static func integer(_ bytes: [UInt8]) throws -> Int64 {
        let node = try parse(bytes, "a receipt integer is not ASN.1")
        guard let value = try? Int64(berEncoded: node, withIdentifier: .integer) else {
            throw Malformed("a receipt integer is not an INTEGER of 64 bits")
        }
        return value
    }

    /// RFC 3339 in an IA5String; an empty string is an absent date (Apple writes those).
    static func date(_ bytes: [UInt8]) throws -> Date? {
        let text = try string(bytes)
        if text.isEmpty { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { throw Malformed("a receipt date is not RFC 3339: \(text)") }
        return date
    }
}
