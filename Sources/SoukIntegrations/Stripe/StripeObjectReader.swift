import Foundation
import SoukCore

/// Reads one Stripe API object (a Checkout Session, an Invoice…) out of parsed JSON, naming the
/// path of whatever is missing or mistyped (`data.object.amount_paid: expected an integer`).
///
/// Stripe's conventions: absent and `null` mean the same; amounts are integers in minor units;
/// times are Unix seconds; a reference to another object is its id, or the object itself when the
/// request asked to expand it, so both are read as the id.
struct StripeObjectReader {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    /// Refuses anything that is not an object whose `object` member (when present) is `kind`.
    init(_ value: JSONValue, path: String, expecting kind: String) throws(JSONPathError) {
        guard value.isObject else { throw JSONPathError(path: path, message: "expected a Stripe \(kind) object") }
        if let object = value["object"]?.stringValue, object != kind {
            throw JSONPathError(path: path, message: "expected a Stripe \(kind) object, found \(object)")
        }
        self.init(value, path: path)
    }

    func at(_ key: String) -> StripeObjectReader? {
        guard let member = value[key], member != .null else { return nil }
        return StripeObjectReader(member, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func fail(_ key: String, _ message: String) -> JSONPathError {
        JSONPathError(path: path.isEmpty ? key : "\(path).\(key)", message: message)
    }

    func string(_ key: String) throws(JSONPathError) -> String? {
        guard let member = at(key) else { return nil }
        guard let text = member.value.stringValue else { throw fail(key, "expected a string") }
        return text
    }

    func requiredString(_ key: String) throws(JSONPathError) -> String {
        guard let text = try string(key), !text.isEmpty else { throw fail(key, "is missing") }
        return text
    }

    func int(_ key: String) throws(JSONPathError) -> Int? {
        guard let member = at(key) else { return nil }
        guard case .number(let literal) = member.value, let number = Int(literal) else { throw fail(key, "expected an integer") }
        return number
    }

    func requiredInt(_ key: String) throws(JSONPathError) -> Int {
        guard let number = try int(key) else { throw fail(key, "is missing") }
        return number
    }

    func bool(_ key: String) throws(JSONPathError) -> Bool? {
        guard let member = at(key) else { return nil }
        guard case .bool(let flag) = member.value else { throw fail(key, "expected true or false") }
        return flag
    }

    /// Unix seconds.
    func date(_ key: String) throws(JSONPathError) -> Date? {
        try int(key).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// An expandable reference: the id, whether Stripe sent the id or the expanded object.
    func reference(_ key: String) throws(JSONPathError) -> String? {
        guard let member = at(key) else { return nil }
        if let id = member.value.stringValue { return id }
        if let id = member.value["id"]?.stringValue { return id }
        throw fail(key, "expected an id or an object with an id")
    }

    /// Stripe metadata: string keys to string values; an absent map is empty.
    func metadata(_ key: String = "metadata") throws(JSONPathError) -> [String: String] {
        guard let member = at(key) else { return [:] }
        guard case .object(let members) = member.value else { throw fail(key, "expected an object of strings") }
        var result: [String: String] = [:]
        for entry in members {
            guard let text = entry.value.stringValue else { throw member.fail(entry.name, "expected a string") }
            result[entry.name] = text
        }
        return result
    }

    /// The first element of a list object's `data` (`lines.data[0]`, `items.data[0]`).
    func firstListItem(_ key: String) -> StripeObjectReader? {
        guard let list = at(key), let first = list.value["data"]?.arrayValue?.first, first.isObject else { return nil }
        return StripeObjectReader(first, path: "\(list.path).data[0]")
    }
}
