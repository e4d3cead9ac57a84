import Crypto
import Foundation

/// A notification App Store Connect sends to a marketplace's webhook (spec §8):
/// `{"data": {"type", "version": 1, "id", "timestamp", "attributes": {…}}}`.
public struct AppStoreConnectEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A new package version to ingest.
        case packageVersionAvailable(appId: UInt64, packageId: String, packageVersionId: String)
        /// Packages (app versions) no longer to be offered. Also spelled `AppVersionUnavailable`.
        case versionsUnavailable(appId: UInt64?, packageIds: [String])
        /// The whole app is no longer to be offered.
        case appUnavailable(appId: UInt64)
        /// A type Souk does not act on; recorded and acknowledged.
        case other(String)
    }

    /// Unique per event; App Store Connect may deliver one event more than once.
    public var id: String
    public var type: String
    public var kind: Kind

    public init(id: String, type: String, kind: Kind) {
        self.id = id
        self.type = type
        self.kind = kind
    }

    /// Why a body is not an event Souk can read.
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ bytes: [UInt8]) throws(Malformed) -> AppStoreConnectEvent {
        guard let document = try? JSONValue.parse(bytes), let data = document["data"], data.isObject else {
            throw Malformed(description: "The body must be a JSON object with a data object.")
        }
        guard let id = data["id"]?.stringValue, !id.isEmpty, id.count <= 200 else {
            throw Malformed(description: "data.id must be a non-empty string.")
        }
        guard let type = data["type"]?.stringValue, !type.isEmpty else { throw Malformed(description: "data.type must be a string.") }
        let attributes = data["attributes"] ?? .object([])
        func appleID(_ name: String) throws(Malformed) -> UInt64 {
            guard let value = attributes[name].flatMap(AppleID.from(json:)) else {
                throw Malformed(description: "data.attributes.\(name) must be a decimal identifier.")
            }
            return value
        }
        func string(_ name: String) throws(Malformed) -> String {
            switch attributes[name] {
            case .string(let text)? where !text.isEmpty && text.count <= 200: return text
            case .number(let text)?: return text
            default: throw Malformed(description: "data.attributes.\(name) must be a string.")
            }
        }
        let kind: Kind
        switch type {
        case "AlternativeDistributionPackageVersionAvailable":
            kind = .packageVersionAvailable(appId: try appleID("appId"), packageId: try string("alternativeDistributionPackageId"),
                                            packageVersionId: try string("alternativeDistributionPackageVersionId"))
        case "AppVersionsUnavailable", "AppVersionUnavailable":
            var ids: [String] = []
            if let list = attributes["alternativeDistributionPackageIds"]?.arrayValue {
                for item in list {
                    switch item {
                    case .string(let text), .number(let text): ids.append(text)
                    default: throw Malformed(description: "data.attributes.alternativeDistributionPackageIds must hold strings.")
                    }
                }
            } else if let single = try? string("alternativeDistributionPackageId") {
                ids = [single]
            } else {
                throw Malformed(description: "data.attributes.alternativeDistributionPackageIds must be an array.")
            }
            kind = .versionsUnavailable(appId: attributes["appId"].flatMap(AppleID.from(json:)), packageIds: ids)
        case "AppUnavailable":
            kind = .appUnavailable(appId: try appleID("appId"))
        default:
            kind = .other(type)
        }
        return AppStoreConnectEvent(id: id, type: type, kind: kind)
    }
}

/// The `x-apple-signature: hmacsha256=<hex>` header: HMAC-SHA256 of the raw body with the
/// webhook's shared secret.
public enum WebhookSignature {
    public static let prefix = "hmacsha256="

    public static func sign(_ body: some DataProtocol, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8)))
        return prefix + Digest.hex(mac)
    }

    /// True when `header` carries the body's signature (compared in constant time; hex in any case).
    public static func isValid(_ header: String?, body: some DataProtocol, secret: String) -> Bool {
        guard let header, header.lowercased().hasPrefix(prefix) else { return false }
        let expected = sign(body, secret: secret)
        return ConstantTime.equal(prefix + header.dropFirst(prefix.count).lowercased(), expected)
    }
}
