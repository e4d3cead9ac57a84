import Foundation

/// Reads Zapp's payment-provider API's `POST transactions` body as a CloudEvents 1.0 event (JSON event format and
/// the HTTP protocol binding): **structured mode** (the whole event is the JSON body,
/// `application/cloudevents+json` or `application/json`) and **binary mode** (attributes in
/// `ce-*` headers, `data` is the body, its media type is `Content-Type`).
///
/// - `specversion` must be `1.0`; `id`, `source` and `type` are required non-empty strings;
///   `time` is RFC 3339.
/// - `datacontenttype` may be any JSON media type (`…/json`, `…+json`): the seed's own sample
///   says `applicastion/json`.
/// - `data.store` may be left out when `data.platform` names one (`ios` → `apple_store` …);
///   both given must agree.
/// - `data.transaction.receipt` may be a JSON string or any JSON value (kept as its JSON text); it is
///   required for Google Play, optional elsewhere (Apple without one is looked up by transaction id);
///   `data.transaction.userId` is required for Amazon.
public enum CloudEventParser {
    /// The supported CloudEvents version.
    public static let specversion = "1.0"

    /// Binary mode when the request carries `ce-specversion`, structured mode otherwise.
    /// `headers`: lower-cased names.
    public static func parse(headers: [String: String], body: [UInt8]) -> Result<PaymentValidationEvent, CloudEventError> {
        headers["ce-specversion"] != nil ? binary(headers: headers, body: body) : structured(body)
    }

    /// Structured mode: the body is the event.
    public static func structured(_ body: [UInt8]) -> Result<PaymentValidationEvent, CloudEventError> {
        Result { () throws(CloudEventError) in
            let document: JSONValue
            do {
                document = try JSONValue.parse(body)
            } catch {
                throw CloudEventError(path: "", message: "the body is not JSON (\(error))")
            }
            guard case .object = document else {
                throw CloudEventError(path: "", message: "the body must be a JSON object: a CloudEvents 1.0 event")
            }
            let attributes = EventAttributes(
                specversion: try attribute(document, "specversion"), id: try attribute(document, "id"),
                source: try attribute(document, "source"), type: try attribute(document, "type"),
                subject: try attribute(document, "subject"), time: try attribute(document, "time"),
                datacontenttype: try attribute(document, "datacontenttype"), names: .structured)
            let data: JSONValue
            switch (present(document["data"]), present(document["data_base64"])) {
            case (nil, nil):
                throw CloudEventError(path: "data", message: "is required")
            case (.some, .some):
                throw CloudEventError(path: "data_base64", message: "an event carries data or data_base64, not both")
            case (let value?, nil):
                // A JSON data value is the value itself; a string holding a JSON object (some
                // senders encode it twice) is read as that object.
                if case .string(let text) = value, let inner = try? JSONValue.parse(Array(text.utf8)), inner.isObject {
                    data = inner
                } else {
                    data = value
                }
            case (nil, let encoded?):
                guard case .string(let text) = encoded, let decoded = Base64URL.decodeEitherAlphabet(text).map(Array.init) else {
                    throw CloudEventError(path: "data_base64", message: "must be a base64 string")
                }
                do {
                    data = try JSONValue.parse(decoded)
                } catch {
                    throw CloudEventError(path: "data_base64", message: "does not hold JSON (\(error))")
                }
            }
            return try event(attributes, data: data)
        }
    }

    /// Binary mode: attributes from the `ce-*` headers (percent-decoded), `data` from the body.
    /// `headers`: lower-cased names.
    public static func binary(headers: [String: String], body: [UInt8]) -> Result<PaymentValidationEvent, CloudEventError> {
        Result { () throws(CloudEventError) in
            func header(_ name: String) throws(CloudEventError) -> String? {
                guard let raw = headers[name] else { return nil }
                guard let value = percentDecoded(raw) else {
                    throw CloudEventError(path: name, message: "is not valid percent-encoded UTF-8")
                }
                return value
            }
            let attributes = EventAttributes(
                specversion: try header("ce-specversion"), id: try header("ce-id"), source: try header("ce-source"),
                type: try header("ce-type"), subject: try header("ce-subject"), time: try header("ce-time"),
                datacontenttype: headers["content-type"], names: .binary)
            guard !body.isEmpty else { throw CloudEventError(path: "data", message: "is required (the request body)") }
            let data: JSONValue
            do {
                data = try JSONValue.parse(body)
            } catch {
                throw CloudEventError(path: "data", message: "the body is not JSON (\(error))")
            }
            return try event(attributes, data: data)
        }
    }

    /// True for any JSON media type: `application/json`, `application/cloudevents+json`,
    /// `text/json`, the seed's `applicastion/json`; parameters (`; charset=utf-8`) are ignored.
    public static func isJSONMediaType(_ value: String) -> Bool {
        let type = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        return parts[1] == "json" || parts[1].hasSuffix("+json")
    }
}

/// The context attributes as read, before they are checked. `names` says how errors name them.
struct EventAttributes {
    enum Names {
        case structured, binary
        func path(_ attribute: String) -> String { self == .structured ? attribute : "ce-\(attribute)" }
    }

    var specversion, id, source, type, subject, time, datacontenttype: String?
    var names: Names
}

extension CloudEventParser {
    /// A string attribute of a structured event; null counts as absent (CloudEvents JSON format §2.4).
    static func attribute(_ document: JSONValue, _ name: String) throws(CloudEventError) -> String? {
        switch document[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw CloudEventError(path: name, message: "must be a string")
        }
    }

    static func present(_ value: JSONValue?) -> JSONValue? {
        if case .null? = value { return nil }
        return value
    }

    static func event(_ attributes: EventAttributes, data: JSONValue) throws(CloudEventError) -> PaymentValidationEvent {
        let names = attributes.names
        guard let version = attributes.specversion else { throw CloudEventError(path: names.path("specversion"), message: "is required") }
        guard version == specversion else {
            throw CloudEventError(path: names.path("specversion"), message: "\"\(version)\" is not supported (only \(specversion))")
        }
        func required(_ value: String?, _ name: String) throws(CloudEventError) -> String {
            guard let value else { throw CloudEventError(path: names.path(name), message: "is required") }
            guard !value.isEmpty else { throw CloudEventError(path: names.path(name), message: "must not be empty") }
            return value
        }
        let id = try required(attributes.id, "id")
        let source = try required(attributes.source, "source")
        let type = try required(attributes.type, "type")
        var time: Date?
        if let text = attributes.time {
            guard let date = RFC3339.parse(text) else {
                throw CloudEventError(path: names.path("time"), message: "\"\(text)\" is not an RFC 3339 timestamp")
            }
            time = date
        }
        if let contentType = attributes.datacontenttype, !isJSONMediaType(contentType) {
            throw CloudEventError(path: names == .structured ? "datacontenttype" : "content-type",
                                  message: "\"\(contentType)\" is not a JSON media type (data must be JSON)")
        }
        return PaymentValidationEvent(id: id, source: source, type: type, specversion: version, subject: attributes.subject,
                                      time: time, data: try paymentData(data))
    }

    /// Seed 003's `data` object.
    static func paymentData(_ data: JSONValue) throws(CloudEventError) -> PaymentValidationData {
        guard data.isObject else { throw CloudEventError(path: "data", message: "must be a JSON object") }
        guard let transaction = data["transaction"] else { throw CloudEventError(path: "data.transaction", message: "is required") }
        guard transaction.isObject else { throw CloudEventError(path: "data.transaction", message: "must be an object") }
        let storeProductId = try requiredText(transaction, "storeProductId", in: "data.transaction")
        let transactionId = try requiredText(transaction, "transactionId", in: "data.transaction")
        let userId = try optionalText(transaction, "userId", in: "data.transaction")
        let receipt: String
        switch transaction["receipt"] {
        case nil, .null?: receipt = ""
        case .string(let text)?: receipt = text
        case let value?: receipt = JSONText.write(value)
        }
        let productId = try requiredText(data, "productId", in: "data")
        let itemId = try optionalText(data, "itemId", in: "data")
        let username = try optionalText(data, "username", in: "data")
        let platform = try optionalText(data, "platform", in: "data")
        let platformStore = platform.flatMap { CommerceStore(platform: $0) }
        let store: CommerceStore
        if let name = try optionalText(data, "store", in: "data") {
            guard let named = CommerceStore(rawValue: name.lowercased()) else {
                throw CloudEventError(path: "data.store", message: "\"\(name)\" is not one of \(CommerceStore.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let platformStore, platformStore != named, let platform {
                throw CloudEventError(path: "data.platform", message: "\"\(platform)\" buys through \(platformStore.rawValue), not \(named.rawValue)")
            }
            store = named
        } else if let platformStore {
            store = platformStore
        } else if let platform {
            throw CloudEventError(path: "data.store", message: "is required (platform \"\(platform)\" names no store)")
        } else {
            throw CloudEventError(path: "data.store", message: "is required (or data.platform: ios, tvos, android, amazon_fire_tv, roku)")
        }
        switch store {
        case .googlePlay where receipt.isEmpty:
            throw CloudEventError(path: "data.transaction.receipt", message: "is required for google_play (Play Billing's purchase JSON or the purchase token)")
        case .amazon where userId == nil:
            throw CloudEventError(path: "data.transaction.userId", message: "is required for amazon (the Amazon user id of the receipt)")
        default:
            // Apple without a receipt is looked up by transactionId (App Store Server API); Roku asks by transactionId.
            break
        }
        return PaymentValidationData(
            transaction: PaymentTransaction(storeProductId: storeProductId, transactionId: transactionId, userId: userId, receipt: receipt),
            itemId: itemId, productId: productId, username: username, store: store, platform: platform)
    }

    /// A string member (a JSON number is taken as its literal text: some stores' ids are numeric).
    static func optionalText(_ object: JSONValue, _ name: String, in parent: String) throws(CloudEventError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        case .number(let text)?: return text
        default: throw CloudEventError(path: "\(parent).\(name)", message: "must be a string")
        }
    }

    static func requiredText(_ object: JSONValue, _ name: String, in parent: String) throws(CloudEventError) -> String {
        guard let text = try optionalText(object, name, in: parent) else {
            throw CloudEventError(path: "\(parent).\(name)", message: object[name] == nil ? "is required" : "must not be empty")
        }
        return text
    }

    /// RFC 3986 percent-decoding, as the CloudEvents HTTP binding encodes header values (§3.1.3.2).
    static func percentDecoded(_ value: String) -> String? {
        guard value.utf8.contains(UInt8(ascii: "%")) else { return value }
        var bytes: [UInt8] = []
        var iterator = Array(value.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Writes a parsed JSON value back as compact JSON text (numbers keep their literal text).
enum JSONText {
    static func write(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func append(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendString(member.name, to: &out)
                out.append(UInt8(ascii: ":"))
                append(member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): appendString(text, to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }

    static func appendString(_ text: String, to out: inout [UInt8]) {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        out.append(contentsOf: writer.bytes)
    }
}
