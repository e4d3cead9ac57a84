import Foundation

extension CatalogFile {
    static let productKeys: Set<String> = [
        "id", "type", "group", "level", "period", "duration", "title", "description", "prices", "introductoryOffer",
        "familyShareable", "skus", "entitlements", "promoted", "offers",
    ]
    static let priceKeys: Set<String> = ["currency", "amount"]
    static let offerKeys: Set<String> = ["mode", "period", "periods", "prices"]
    static let promotionKeys: Set<String> = ["order", "visible"]
    static let subscriptionOfferKeys: Set<String> = ["id", "eligibility"]

    /// One product object of the file (`path` is `products[n]`), checked for shape only.
    static func product(from value: JSONValue, path: String) throws(CatalogFileError) -> ProductDefinition {
        let object = try CatalogFileObject(value, path: path, allowed: productKeys)
        let id = try object.requiredString("id")
        let typeName = try object.requiredString("type")
        guard let type = ProductType(rawValue: typeName) else {
            throw CatalogFileError(path: object.path("type"), message: "\"\(typeName)\" is not one of \(ProductType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var product = ProductDefinition(id: id, type: type)
        product.group = try object.string("group")
        product.level = try object.integer("level")
        product.period = try object.duration("period")
        product.duration = try object.duration("duration")
        product.title = try localized(object, "title")
        product.description = try localized(object, "description")
        product.prices = try prices(object.array("prices"), path: object.path("prices"))
        if let offer = object["introductoryOffer"] {
            product.introductoryOffer = try introductoryOffer(offer, path: object.path("introductoryOffer"))
        }
        product.familyShareable = try object.bool("familyShareable") ?? false
        for (store, sku) in try object.strings("skus") {
            guard let known = CommerceStore(rawValue: store) else {
                throw CatalogFileError(path: "\(object.path("skus")).\(store)", message: "unknown store (known: \(CommerceStore.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            product.skus[known] = sku
        }
        for (index, item) in try object.array("entitlements").enumerated() {
            guard case .string(let entitlement) = item else {
                throw CatalogFileError(path: "\(object.path("entitlements"))[\(index)]", message: "must be a string (an entitlement id)")
            }
            product.entitlements.append(entitlement)
        }
        if let promoted = object["promoted"] {
            let promotion = try CatalogFileObject(promoted, path: object.path("promoted"), allowed: promotionKeys)
            guard let order = try promotion.integer("order") else { throw CatalogFileError(path: promotion.path("order"), message: "is required") }
            product.promoted = Promotion(order: order, visible: try promotion.bool("visible") ?? true)
        }
        for (index, item) in try object.array("offers").enumerated() {
            product.offers.append(try subscriptionOffer(item, path: "\(object.path("offers"))[\(index)]"))
        }
        return product
    }

    /// One promotional offer (`{"id": "winback50", "eligibility": "lapsed"}`; eligibility `any` when left out).
    static func subscriptionOffer(_ value: JSONValue, path: String) throws(CatalogFileError) -> SubscriptionOffer {
        let object = try CatalogFileObject(value, path: path, allowed: subscriptionOfferKeys)
        let id = try object.requiredString("id")
        guard let name = try object.string("eligibility") else { return SubscriptionOffer(id: id) }
        guard let eligibility = SubscriptionOffer.Eligibility(rawValue: name) else {
            let known = SubscriptionOffer.Eligibility.allCases.map(\.rawValue).joined(separator: ", ")
            throw CatalogFileError(path: object.path("eligibility"), message: "\"\(name)\" is not one of \(known)")
        }
        return SubscriptionOffer(id: id, eligibility: eligibility)
    }

    static func localized(_ object: CatalogFileObject, _ key: String) throws(CatalogFileError) -> [String: String] {
        var texts: [String: String] = [:]
        for (locale, text) in try object.strings(key) { texts[locale] = text }
        return texts
    }

    static func prices(_ items: [JSONValue], path: String) throws(CatalogFileError) -> [Price] {
        var prices: [Price] = []
        for (index, item) in items.enumerated() {
            let object = try CatalogFileObject(item, path: "\(path)[\(index)]", allowed: priceKeys)
            guard let amount = try object.integer("amount") else { throw CatalogFileError(path: object.path("amount"), message: "is required") }
            prices.append(Price(currency: try object.requiredString("currency"), amount: amount))
        }
        return prices
    }

    static func introductoryOffer(_ value: JSONValue, path: String) throws(CatalogFileError) -> IntroductoryOffer {
        let object = try CatalogFileObject(value, path: path, allowed: offerKeys)
        let modeName = try object.requiredString("mode")
        guard let mode = IntroductoryOffer.Mode(rawValue: modeName) else {
            throw CatalogFileError(path: object.path("mode"), message: "\"\(modeName)\" is not one of \(IntroductoryOffer.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let period = try object.duration("period") else { throw CatalogFileError(path: object.path("period"), message: "is required") }
        return IntroductoryOffer(mode: mode, period: period, periods: try object.integer("periods") ?? 1,
                                 prices: try prices(object.array("prices"), path: object.path("prices")))
    }
}
