/// The old and new value of everything a catalog diff names, for the audit log: a price change
/// reads `product reader.monthly: prices` from `4.99 USD, 4.99 EUR` to `5.49 USD, 4.99 EUR`.
/// Store settings are named as the file names them (a secret by its `…Path` or `…Env`
/// reference), so no secret's value is ever among them.
extension CatalogDiff {
    /// A product's file keys, in the order the file writes them.
    static let productFields = ["type", "group", "level", "period", "duration", "title", "description", "prices",
                                "introductoryOffer", "familyShareable", "skus", "entitlements", "promoted", "offers"]

    /// The values `diff` changes from `old` (nil: no catalog yet) to `new`, in the order of its lines.
    static func values(of diff: CatalogDiff, from old: CommerceCatalog?, to new: CommerceCatalog) -> [FieldChange] {
        var changes: [FieldChange] = []
        if let allowSandbox = diff.allowSandbox {
            changes.append(FieldChange("allowSandbox", before: String(allowSandbox.from), after: String(allowSandbox.to)))
        }
        func title(_ id: String, in catalog: CommerceCatalog?) -> String? { catalog?.entitlements.first { $0.id == id }?.title }
        changes += diff.addedEntitlements.map { FieldChange("entitlement \($0): title", before: nil, after: title($0, in: new)) }
        changes += diff.changedEntitlements.map { FieldChange("entitlement \($0): title", before: title($0, in: old), after: title($0, in: new)) }
        changes += diff.removedEntitlements.map { FieldChange("entitlement \($0): title", before: title($0, in: old), after: nil) }
        func product(_ id: String, in catalog: CommerceCatalog?) -> ProductDefinition? { catalog?.products.first { $0.id == id } }
        for id in diff.addedProducts {
            guard let added = product(id, in: new) else { continue }
            changes += productFields.compactMap { field in
                value(of: field, in: added).map { FieldChange("product \(id): \(field)", before: nil, after: $0) }
            }
        }
        for change in diff.changedProducts {
            let before = product(change.id, in: old), after = product(change.id, in: new)
            changes += change.fields.map { field in
                FieldChange("product \(change.id): \(field)", before: before.flatMap { value(of: field, in: $0) },
                            after: after.flatMap { value(of: field, in: $0) })
            }
        }
        // A retired product stays (its buyers keep their entitlements): only its being on sale changes.
        changes += diff.retiredProducts.map { FieldChange("product \($0)", before: "on sale", after: "retired") }
        if diff.reordered, let old {
            let oldProducts = old.products.map(\.id), newProducts = new.products.map(\.id)
            if oldProducts.filter(newProducts.contains) != newProducts.filter(oldProducts.contains) {
                changes.append(FieldChange("order of products", before: oldProducts.joined(separator: ", "),
                                           after: newProducts.joined(separator: ", ")))
            }
            let oldEntitlements = old.entitlements.map(\.id), newEntitlements = new.entitlements.map(\.id)
            if oldEntitlements.filter(newEntitlements.contains) != newEntitlements.filter(oldEntitlements.contains) {
                changes.append(FieldChange("order of entitlements", before: oldEntitlements.joined(separator: ", "),
                                           after: newEntitlements.joined(separator: ", ")))
            }
        }
        for store in diff.changedStores {
            let before = storeSettings(store, in: old?.stores), after = storeSettings(store, in: new.stores)
            for key in CatalogFile.fileKeys(of: store) where before[key] != after[key] {
                changes.append(FieldChange("stores.\(store.rawValue): \(key)", before: before[key], after: after[key]))
            }
        }
        return changes
    }

    /// A product's value of one file key as the audit log shows it: prices as amounts with their
    /// currency (`4.99 USD, 4.99 EUR`), an offer in words, anything else as the file states it
    /// (text unquoted, objects and lists as compact JSON); nil where the file leaves the key out.
    static func value(of field: String, in product: ProductDefinition) -> String? {
        switch field {
        case "prices":
            return product.prices.isEmpty ? nil : formatted(product.prices)
        case "introductoryOffer":
            return product.introductoryOffer.map { offer in
                "\(offer.mode.rawValue) \(offer.period)" + (offer.periods == 1 ? "" : " × \(offer.periods)")
                    + (offer.prices.isEmpty ? "" : " at " + formatted(offer.prices))
            }
        case "familyShareable":
            return String(product.familyShareable)
        default:
            guard case .object(let members) = CatalogFile.jsonValue(product),
                  let member = members.first(where: { $0.name == field }) else { return nil }
            return text(member.value)
        }
    }

    static func formatted(_ prices: [Price]) -> String {
        prices.map(\.formatted).joined(separator: ", ")
    }

    /// One store's settings as file key → value (secrets as their reference), empty when not set.
    static func storeSettings(_ store: CommerceStore, in stores: CommerceStoreSettings?) -> [String: String] {
        guard let stores, case .object(let all) = CatalogFile.jsonValue(stores),
              case .object(let members)? = all.first(where: { $0.name == store.rawValue })?.value else { return [:] }
        return Dictionary(members.map { ($0.name, text($0.value)) }, uniquingKeysWith: { first, _ in first })
    }

    static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.compactText()
    }
}
