import Foundation

/// The catalog file of `souk catalog apply` (docs/commerce.md "Catalog"): one app's entitlements
/// and products as JSON, read into a `CommerceCatalog` and written back in the same format.
///
/// Reading checks the shape (known keys, JSON types, durations, integers) and then every rule of
/// `validate(_:)`; each error names the JSON path of the offending value.
public enum CatalogFile {
    static let topLevelKeys: Set<String> = ["app", "allowSandbox", "entitlements", "products", "stores"]
    static let entitlementKeys: Set<String> = ["id", "title"]

    /// Reads and validates a catalog file.
    public static func parse(_ bytes: [UInt8]) throws(CatalogFileError) -> CommerceCatalog {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw CatalogFileError(path: "", message: "not JSON (\(error))")
        }
        let catalog = try catalog(from: document)
        try validate(catalog)
        return catalog
    }

    public static func parse(_ text: String) throws(CatalogFileError) -> CommerceCatalog {
        try parse(Array(text.utf8))
    }

    /// The catalog a parsed document states, checked for shape only.
    static func catalog(from document: JSONValue) throws(CatalogFileError) -> CommerceCatalog {
        let root = try CatalogFileObject(document, path: "", allowed: topLevelKeys)
        let app = try root.requiredString("app")
        let allowSandbox = try root.bool("allowSandbox") ?? false
        var entitlements: [EntitlementDefinition] = []
        for (index, item) in try root.array("entitlements").enumerated() {
            let object = try CatalogFileObject(item, path: "entitlements[\(index)]", allowed: entitlementKeys)
            let id = try object.requiredString("id")
            entitlements.append(EntitlementDefinition(id: id, title: try object.string("title") ?? id))
        }
        var products: [ProductDefinition] = []
        for (index, item) in try root.array("products").enumerated() {
            products.append(try product(from: item, path: "products[\(index)]"))
        }
        var stores: CommerceStoreSettings?
        if let value = root["stores"] { stores = try Self.stores(from: value, path: "stores") }
        return CommerceCatalog(app: app, allowSandbox: allowSandbox, entitlements: entitlements, products: products, stores: stores)
    }
}

/// A JSON object of the catalog file being read, with its path for error messages.
struct CatalogFileObject {
    let members: [JSONMember]
    let path: String

    /// `allowed: nil` accepts any key (files written by other tools, such as Xcode's StoreKit file).
    init(_ value: JSONValue, path: String, allowed: Set<String>?) throws(CatalogFileError) {
        guard case .object(let members) = value else {
            throw CatalogFileError(path: path, message: "must be an object")
        }
        var seen: Set<String> = []
        for member in members {
            if let allowed, !allowed.contains(member.name) {
                throw CatalogFileError(path: Self.join(path, member.name), message: "unknown key (known: \(allowed.sorted().joined(separator: ", ")))")
            }
            guard seen.insert(member.name).inserted else {
                throw CatalogFileError(path: Self.join(path, member.name), message: "appears twice")
            }
        }
        self.members = members
        self.path = path
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func path(_ key: String) -> String { Self.join(path, key) }

    /// The member's value; nil when absent or `null`.
    subscript(key: String) -> JSONValue? {
        for member in members where member.name == key {
            if case .null = member.value { return nil }
            return member.value
        }
        return nil
    }

    func string(_ key: String) throws(CatalogFileError) -> String? {
        guard let value = self[key] else { return nil }
        guard case .string(let text) = value else { throw CatalogFileError(path: path(key), message: "must be a string") }
        return text
    }

    func requiredString(_ key: String) throws(CatalogFileError) -> String {
        guard let text = try string(key) else { throw CatalogFileError(path: path(key), message: "is required") }
        return text
    }

    func bool(_ key: String) throws(CatalogFileError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case .bool(let flag) = value else { throw CatalogFileError(path: path(key), message: "must be true or false") }
        return flag
    }

    func integer(_ key: String) throws(CatalogFileError) -> Int? {
        guard let value = self[key] else { return nil }
        return try Self.integer(value, path: path(key))
    }

    static func integer(_ value: JSONValue, path: String) throws(CatalogFileError) -> Int {
        guard case .number(let literal) = value, let number = Int(literal) else {
            throw CatalogFileError(path: path, message: "must be a whole number (no fraction, no exponent)")
        }
        return number
    }

    func duration(_ key: String) throws(CatalogFileError) -> ISODuration? {
        guard let text = try string(key) else { return nil }
        guard let duration = ISODuration(text) else {
            throw CatalogFileError(path: path(key), message: "\"\(text)\" is not an ISO 8601 duration such as P1M or P30D")
        }
        return duration
    }

    /// An array member (absent: empty).
    func array(_ key: String) throws(CatalogFileError) -> [JSONValue] {
        guard let value = self[key] else { return [] }
        guard case .array(let items) = value else { throw CatalogFileError(path: path(key), message: "must be an array") }
        return items
    }

    /// An object of strings (localized texts, SKUs); absent: empty.
    func strings(_ key: String) throws(CatalogFileError) -> [(key: String, value: String)] {
        guard let value = self[key] else { return [] }
        guard case .object(let members) = value else { throw CatalogFileError(path: path(key), message: "must be an object") }
        var result: [(key: String, value: String)] = []
        var seen: Set<String> = []
        for member in members {
            guard seen.insert(member.name).inserted else {
                throw CatalogFileError(path: "\(path(key)).\(member.name)", message: "appears twice")
            }
            guard case .string(let text) = member.value else {
                throw CatalogFileError(path: "\(path(key)).\(member.name)", message: "must be a string")
            }
            result.append((member.name, text))
        }
        return result
    }
}
