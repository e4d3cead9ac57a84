import Foundation

extension CatalogFile {
    /// The catalog as a catalog file (what `souk catalog show` prints): reading it back gives the
    /// same catalog. Keys in the documented order, localized texts sorted by locale, SKUs in store order.
    public static func encode(_ catalog: CommerceCatalog, pretty: Bool = true) -> String {
        let document = JSONValue.object([
            JSONMember("app", .string(catalog.app)),
            JSONMember("allowSandbox", .bool(catalog.allowSandbox)),
            JSONMember("entitlements", .array(catalog.entitlements.map {
                .object([JSONMember("id", .string($0.id)), JSONMember("title", .string($0.title))])
            })),
            JSONMember("products", .array(catalog.products.map(jsonValue))),
        ] + (catalog.stores.map { $0.isEmpty ? [] : [JSONMember("stores", jsonValue($0))] } ?? []))
        return pretty ? document.prettyText() : document.compactText()
    }

    /// One product as the file states it (also how the store keeps a definition).
    public static func jsonValue(_ product: ProductDefinition) -> JSONValue {
        var members = [JSONMember("id", .string(product.id)), JSONMember("type", .string(product.type.rawValue))]
        if let group = product.group { members.append(JSONMember("group", .string(group))) }
        if let level = product.level { members.append(JSONMember("level", .number(String(level)))) }
        if let period = product.period { members.append(JSONMember("period", .string(period.description))) }
        if let duration = product.duration { members.append(JSONMember("duration", .string(duration.description))) }
        if !product.title.isEmpty { members.append(JSONMember("title", localized(product.title))) }
        if !product.description.isEmpty { members.append(JSONMember("description", localized(product.description))) }
        if !product.prices.isEmpty { members.append(JSONMember("prices", prices(product.prices))) }
        if let offer = product.introductoryOffer {
            var offerMembers = [JSONMember("mode", .string(offer.mode.rawValue)), JSONMember("period", .string(offer.period.description))]
            if offer.periods != 1 { offerMembers.append(JSONMember("periods", .number(String(offer.periods)))) }
            if !offer.prices.isEmpty { offerMembers.append(JSONMember("prices", prices(offer.prices))) }
            members.append(JSONMember("introductoryOffer", .object(offerMembers)))
        }
        if product.familyShareable { members.append(JSONMember("familyShareable", .bool(true))) }
        if !product.skus.isEmpty {
            members.append(JSONMember("skus", .object(product.skus.sorted { $0.key < $1.key }.map { JSONMember($0.key.rawValue, .string($0.value)) })))
        }
        if !product.entitlements.isEmpty { members.append(JSONMember("entitlements", .array(product.entitlements.map(JSONValue.string)))) }
        if let promoted = product.promoted {
            members.append(JSONMember("promoted", .object([JSONMember("order", .number(String(promoted.order))),
                                                           JSONMember("visible", .bool(promoted.visible))])))
        }
        if !product.offers.isEmpty {
            members.append(JSONMember("offers", .array(product.offers.map {
                .object([JSONMember("id", .string($0.id)), JSONMember("eligibility", .string($0.eligibility.rawValue))])
            })))
        }
        return .object(members)
    }

    /// A product kept by `jsonValue` read back (the store's definitions).
    public static func product(json: String) throws(CatalogFileError) -> ProductDefinition {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(json.utf8))
        } catch {
            throw CatalogFileError(path: "", message: "not JSON (\(error))")
        }
        return try product(from: value, path: "")
    }

    static func localized(_ texts: [String: String]) -> JSONValue {
        .object(texts.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })
    }

    static func prices(_ prices: [Price]) -> JSONValue {
        .array(prices.map { .object([JSONMember("currency", .string($0.currency)), JSONMember("amount", .number(String($0.amount)))]) })
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public func compactText() -> String {
        var output = ""
        write(to: &output, indent: nil, level: 0)
        return output
    }

    /// The value as JSON text indented by two spaces; objects and arrays of only a few plain values stay on one line.
    public func prettyText() -> String {
        var output = ""
        write(to: &output, indent: "  ", level: 0)
        return output + "\n"
    }

    private var isPlain: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    /// An object printed on one line: a few plain members.
    private var isSmallObject: Bool {
        guard case .object(let members) = self else { return false }
        return members.count <= 2 && members.allSatisfy(\.value.isPlain)
    }

    private func write(to output: inout String, indent: String?, level: Int) {
        switch self {
        case .string(let text): output += Self.quoted(text)
        case .number(let literal): output += literal
        case .bool(let flag): output += flag ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            let inline = indent == nil || items.isEmpty || (items.allSatisfy(\.isPlain) && items.count <= 8)
                || (items.allSatisfy(\.isSmallObject) && items.count <= 3)
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += inline ? (indent == nil ? "," : ", ") : "," }
                if !inline, let indent { output += "\n" + String(repeating: indent, count: level + 1) }
                item.write(to: &output, indent: indent, level: level + 1)
            }
            if !inline, let indent { output += "\n" + String(repeating: indent, count: level) }
            output += "]"
        case .object(let members):
            let inline = indent == nil || members.isEmpty || isSmallObject
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += inline ? (indent == nil ? "," : ", ") : "," }
                if !inline, let indent { output += "\n" + String(repeating: indent, count: level + 1) }
                output += Self.quoted(member.name) + (indent == nil ? ":" : ": ")
                member.value.write(to: &output, indent: indent, level: level + 1)
            }
            if !inline, let indent { output += "\n" + String(repeating: indent, count: level) }
            output += "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
