import Foundation

/// The JSON body of a dynamic license request (spec §3.1): the encrypted opaque request, the
/// RSA-encrypted AES key and IV, and the apps with the version and variant being installed.
public struct LicenseRequestBody: Sendable, Equatable {
    public struct App: Sendable, Equatable {
        public var appleVersionId: UInt64?
        /// The manifest variant (or delta) the device chose; selects that variant's key blob.
        public var assetPublicId: String?
    }

    public var licenseRequest: [UInt8]
    public var licenseKey: [UInt8]
    /// In the order the body lists them.
    public var apps: [(appleItemId: UInt64, app: App)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.licenseRequest == rhs.licenseRequest && lhs.licenseKey == rhs.licenseKey
            && lhs.apps.map(\.appleItemId) == rhs.apps.map(\.appleItemId) && lhs.apps.map(\.app) == rhs.apps.map(\.app)
    }

    /// At most this many apps in one request.
    public static let maxApps = 1000

    public static func parse(_ bytes: [UInt8]) throws(LicenseEnvelopeError) -> LicenseRequestBody {
        guard let object = try? JSONValue.parse(bytes), object.isObject else { throw .malformed("The body must be a JSON object.") }
        let request = try decodeBase64(object, "licenseRequest")
        let key = try decodeBase64(object, "licenseKey")
        guard case .object(let members)? = object["appsById"] else { throw .malformed("appsById must be an object.") }
        guard !members.isEmpty else { throw .malformed("appsById must name at least one app.") }
        guard members.count <= maxApps else { throw .malformed("appsById names more than \(maxApps) apps.") }
        var apps: [(UInt64, App)] = []
        for member in members {
            guard let id = AppleID.parse(member.name) else { throw .malformed("appsById keys must be AppleItemIDs; \(member.name) is not.") }
            guard member.value.isObject else { throw .malformed("appsById.\(member.name) must be an object.") }
            var app = App()
            switch member.value["appleVersionId"] ?? member.value["appleVersionID"] {
            case nil, .null?: break
            case let raw?:
                guard let version = AppleID.from(json: raw) else {
                    throw .malformed("appsById.\(member.name).appleVersionId must be a decimal identifier.")
                }
                app.appleVersionId = version == 0 ? nil : version
            }
            switch member.value["assetPublicId"] {
            case nil, .null?: break
            case .string(let text)? where !text.isEmpty && text.count <= 200: app.assetPublicId = text
            default: throw .malformed("appsById.\(member.name).assetPublicId must be a string.")
            }
            apps.append((id, app))
        }
        return LicenseRequestBody(licenseRequest: request, licenseKey: key, apps: apps)
    }
}

/// The JSON body of a renewal (spec §3.2).
public struct LicenseRenewalBody: Sendable, Equatable {
    public var renewalRequest: [UInt8]
    public var licenseKey: [UInt8]

    public static func parse(_ bytes: [UInt8]) throws(LicenseEnvelopeError) -> LicenseRenewalBody {
        guard let object = try? JSONValue.parse(bytes), object.isObject else { throw .malformed("The body must be a JSON object.") }
        return LicenseRenewalBody(renewalRequest: try decodeBase64(object, "renewalRequest"), licenseKey: try decodeBase64(object, "licenseKey"))
    }
}

public enum LicenseEnvelopeError: Error, Equatable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self {
        case .malformed(let message): message
        }
    }
}

private func decodeBase64(_ object: JSONValue, _ name: String) throws(LicenseEnvelopeError) -> [UInt8] {
    guard let text = object[name]?.stringValue else { throw .malformed("\(name) must be a base64 string.") }
    guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) ?? Base64URL.decode(text), !data.isEmpty else {
        throw .malformed("\(name) is not valid base64.")
    }
    return Array(data)
}

/// Souk's development license request (the decrypted `licenseRequest` / `renewalRequest` when
/// the development issuer is in use; Apple's real format is opaque and read by its SDK):
/// `{"requestId": <uint64>, "deviceId": "<hex>", "action": "create", "appleItemIds": [...]}` or
/// `{"requestId": …, "deviceId": …, "action": "renew", "licenseIds": [...]}`.
public struct DevelopmentLicenseRequest: Sendable, Equatable {
    public enum Action: String, Sendable {
        case create
        case renew
    }

    public var requestId: UInt64
    public var deviceId: String
    public var action: Action
    public var appleItemIds: [UInt64]
    public var licenseIds: [UInt64]

    public init(requestId: UInt64, deviceId: String, action: Action, appleItemIds: [UInt64] = [], licenseIds: [UInt64] = []) {
        self.requestId = requestId
        self.deviceId = deviceId
        self.action = action
        self.appleItemIds = appleItemIds
        self.licenseIds = licenseIds
    }

    public static func parse(_ bytes: [UInt8]) throws(LicenseEnvelopeError) -> DevelopmentLicenseRequest {
        guard let object = try? JSONValue.parse(bytes), object.isObject else {
            throw .malformed("The decrypted request is not Souk's development license request (JSON).")
        }
        guard let requestId = object["requestId"].flatMap(AppleID.from(json:)) else { throw .malformed("requestId must be an unsigned integer.") }
        guard let deviceId = object["deviceId"]?.stringValue, (1...128).contains(deviceId.count),
              deviceId.allSatisfy(\.isHexDigit) else {
            throw .malformed("deviceId must be 1–128 hexadecimal digits.")
        }
        guard let actionText = object["action"]?.stringValue, let action = Action(rawValue: actionText) else {
            throw .malformed("action must be create or renew.")
        }
        func ids(_ name: String) throws(LicenseEnvelopeError) -> [UInt64] {
            guard let list = object[name]?.arrayValue else { throw .malformed("\(name) must be an array.") }
            var result: [UInt64] = []
            for item in list {
                guard let id = AppleID.from(json: item) else { throw .malformed("\(name) must hold decimal identifiers.") }
                result.append(id)
            }
            return result
        }
        switch action {
        case .create: return DevelopmentLicenseRequest(requestId: requestId, deviceId: deviceId.lowercased(), action: action, appleItemIds: try ids("appleItemIds"))
        case .renew: return DevelopmentLicenseRequest(requestId: requestId, deviceId: deviceId.lowercased(), action: action, licenseIds: try ids("licenseIds"))
        }
    }

    /// The JSON text (what a client encrypts).
    public var json: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("requestId")
        writer.integer(requestId)
        writer.field("deviceId", deviceId)
        writer.field("action", action.rawValue)
        writer.key(action == .create ? "appleItemIds" : "licenseIds")
        writer.beginArray()
        for id in action == .create ? appleItemIds : licenseIds { writer.string(String(id)) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
