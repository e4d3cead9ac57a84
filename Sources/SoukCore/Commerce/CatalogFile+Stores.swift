import Foundation

/// The catalog file's `stores` object: each store's credentials for the app,
/// keyed like `skus`. Secrets are never in the file: a `…Path` names a file, a `…Env` an
/// environment variable, read at each use.
///
/// ```json
/// "stores": {
///   "apple_store": {"bundleId": "com.example.reader", "appAppleId": 1234567890, "keyId": "ABC123DEFG",
///                   "issuerId": "57246542-96fe-1a63-e053-0824d011072a", "privateKeyPath": "/etc/souk/SubscriptionKey.p8",
///                   "offerKeyId": "OFFER12345", "offerPrivateKeyPath": "/etc/souk/SubscriptionOfferKey.p8"},
///   "google_play": {"packageName": "com.example.reader", "serviceAccountPath": "/etc/souk/play.json", "rtdnTokenEnv": "READER_RTDN"},
///   "amazon": {"sharedSecretPath": "/etc/souk/amazon.secret", "sandbox": false},
///   "roku": {"partnerApiKeyEnv": "ROKU_KEY"}
/// }
/// ```
extension CatalogFile {
    /// One key of a store's settings, as the file and `souk stores set` name it.
    public enum StoreKey: Sendable, Equatable {
        case text(String)
        case integer(String)
        case flag(String)
        /// A secret: `<base>Path` or `<base>Env`, never both.
        case secret(String)
    }

    /// The keys each store accepts, in the order they are written.
    public static let storeKeys: [CommerceStore: [StoreKey]] = [
        .appleStore: [.text("bundleId"), .integer("appAppleId"), .text("keyId"), .text("issuerId"), .secret("privateKey"),
                      .text("offerKeyId"), .secret("offerPrivateKey"),
                      .flag("sendConsumptionInfo"), .text("refundPreference"), .flag("sampleContentProvided")],
        .googlePlay: [.text("packageName"), .secret("serviceAccount"), .secret("rtdnToken"), .text("pushAudience"),
                      .text("pushServiceAccountEmail")],
        .amazon: [.secret("sharedSecret"), .flag("sandbox")],
        .roku: [.secret("partnerApiKey")],
    ]

    /// The file keys a store accepts (`privateKeyPath`, `privateKeyEnv`, …).
    public static func fileKeys(of store: CommerceStore) -> [String] {
        (storeKeys[store] ?? []).flatMap { key -> [String] in
            switch key {
            case .text(let name), .integer(let name), .flag(let name): [name]
            case .secret(let base): [base + "Path", base + "Env"]
            }
        }
    }

    /// Reads a `stores` object (`path` names it in errors).
    public static func stores(from value: JSONValue, path: String) throws(CatalogFileError) -> CommerceStoreSettings {
        let allowed = Set(CommerceStore.allCases.map(\.rawValue))
        let object = try CatalogFileObject(value, path: path, allowed: allowed)
        var settings = CommerceStoreSettings()
        for store in CommerceStore.allCases {
            guard let item = object[store.rawValue] else { continue }
            let fields = try CatalogFileObject(item, path: object.path(store.rawValue), allowed: Set(fileKeys(of: store)))
            func text(_ key: String) throws(CatalogFileError) -> String? {
                guard let value = try fields.string(key) else { return nil }
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { throw CatalogFileError(path: fields.path(key), message: "must not be empty") }
                return trimmed
            }
            func secret(_ base: String) throws(CatalogFileError) -> SecretReference? {
                let file = try text(base + "Path"), env = try text(base + "Env")
                switch (file, env) {
                case (let file?, nil): return .path(file)
                case (nil, let env?):
                    guard env.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                        throw CatalogFileError(path: fields.path(base + "Env"), message: "must be an environment variable name (letters, digits, _)")
                    }
                    return .env(env)
                case (nil, nil): return nil
                case (_?, _?): throw CatalogFileError(path: fields.path(base + "Env"), message: "give \(base)Path or \(base)Env, not both")
                }
            }
            switch store {
            case .appleStore:
                var appAppleId: Int64?
                if let number = try fields.integer("appAppleId") {
                    guard number > 0 else { throw CatalogFileError(path: fields.path("appAppleId"), message: "must be the app's Apple ID, a positive number") }
                    appAppleId = Int64(number)
                }
                settings.apple = AppleStoreSettings(bundleId: try text("bundleId"), appAppleId: appAppleId, keyId: try text("keyId"),
                                                    issuerId: try text("issuerId"), privateKey: try secret("privateKey"),
                                                    offerKeyId: try text("offerKeyId"), offerPrivateKey: try secret("offerPrivateKey"))
                settings.apple?.sendConsumptionInfo = try fields.bool("sendConsumptionInfo") ?? false
                settings.apple?.sampleContentProvided = try fields.bool("sampleContentProvided") ?? false
                if let preference = try text("refundPreference") {
                    guard let known = AppleStoreSettings.RefundPreference(rawValue: preference) else {
                        throw CatalogFileError(path: fields.path("refundPreference"), message: "must be decline, grant or prorated")
                    }
                    settings.apple?.refundPreference = known
                }
            case .googlePlay:
                settings.googlePlay = GooglePlaySettings(packageName: try text("packageName"), serviceAccount: try secret("serviceAccount"),
                                                         rtdnToken: try secret("rtdnToken"), pushAudience: try text("pushAudience"),
                                                         pushServiceAccountEmail: try text("pushServiceAccountEmail"))
            case .amazon:
                settings.amazon = AmazonSettings(sharedSecret: try secret("sharedSecret"), sandbox: try fields.bool("sandbox") ?? false)
            case .roku:
                settings.roku = RokuSettings(partnerApiKey: try secret("partnerApiKey"))
            }
        }
        return settings
    }

    /// The `stores` object as the file states it (references only: secrets are never in it).
    public static func jsonValue(_ stores: CommerceStoreSettings) -> JSONValue {
        func secret(_ base: String, _ reference: SecretReference?) -> [JSONMember] {
            switch reference {
            case .path(let file): [JSONMember(base + "Path", .string(file))]
            case .env(let name): [JSONMember(base + "Env", .string(name))]
            // A sealed credential lives in the database, never in the file.
            case .sealed, nil: []
            }
        }
        func text(_ key: String, _ value: String?) -> [JSONMember] { value.map { [JSONMember(key, .string($0))] } ?? [] }
        var members: [JSONMember] = []
        if let apple = stores.apple {
            members.append(JSONMember(CommerceStore.appleStore.rawValue, .object(
                text("bundleId", apple.bundleId) + (apple.appAppleId.map { [JSONMember("appAppleId", .number(String($0)))] } ?? [])
                    + text("keyId", apple.keyId) + text("issuerId", apple.issuerId) + secret("privateKey", apple.privateKey)
                    + text("offerKeyId", apple.offerKeyId) + secret("offerPrivateKey", apple.offerPrivateKey)
                    + (apple.sendConsumptionInfo ? [JSONMember("sendConsumptionInfo", .bool(true))] : [])
                    + text("refundPreference", apple.refundPreference?.rawValue)
                    + (apple.sampleContentProvided ? [JSONMember("sampleContentProvided", .bool(true))] : []))))
        }
        if let google = stores.googlePlay {
            members.append(JSONMember(CommerceStore.googlePlay.rawValue, .object(
                text("packageName", google.packageName) + secret("serviceAccount", google.serviceAccount)
                    + secret("rtdnToken", google.rtdnToken) + text("pushAudience", google.pushAudience)
                    + text("pushServiceAccountEmail", google.pushServiceAccountEmail))))
        }
        if let amazon = stores.amazon {
            members.append(JSONMember(CommerceStore.amazon.rawValue, .object(
                secret("sharedSecret", amazon.sharedSecret) + (amazon.sandbox ? [JSONMember("sandbox", .bool(true))] : []))))
        }
        if let roku = stores.roku {
            members.append(JSONMember(CommerceStore.roku.rawValue, .object(secret("partnerApiKey", roku.partnerApiKey))))
        }
        return .object(members)
    }

    /// The stores kept by `jsonValue` read back (`commerce_apps.stores`).
    public static func stores(json: String) throws(CatalogFileError) -> CommerceStoreSettings {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(json.utf8))
        } catch {
            throw CatalogFileError(path: "stores", message: "not JSON (\(error))")
        }
        return try stores(from: value, path: "stores")
    }

    /// `stores` with one store's keys changed (`souk stores set`): each `(fileKey, value)` sets a
    /// key (setting `…Path` drops `…Env` and the reverse); a nil value removes it. Checked as a file would be.
    public static func settingStore(_ store: CommerceStore, in stores: CommerceStoreSettings,
                                    _ changes: [(key: String, value: JSONValue?)]) throws(CatalogFileError) -> CommerceStoreSettings {
        var members: [JSONMember] = []
        if case .object(let all) = jsonValue(stores), let current = all.first(where: { $0.name == store.rawValue }),
           case .object(let fields) = current.value {
            members = fields
        }
        for change in changes {
            guard fileKeys(of: store).contains(change.key) else {
                throw CatalogFileError(path: "stores.\(store.rawValue).\(change.key)",
                                       message: "unknown key (known: \(fileKeys(of: store).joined(separator: ", ")))")
            }
            var replaced = [change.key]
            for suffix in ["Path", "Env"] where change.key.hasSuffix(suffix) {
                let base = String(change.key.dropLast(suffix.count))
                replaced = [base + "Path", base + "Env"]
            }
            members.removeAll { replaced.contains($0.name) }
            if let value = change.value { members.append(JSONMember(change.key, value)) }
        }
        var all: [JSONMember] = []
        if case .object(let others) = jsonValue(stores) { all = others.filter { $0.name != store.rawValue } }
        all.append(JSONMember(store.rawValue, .object(members)))
        return try self.stores(from: .object(all), path: "stores")
    }
}
