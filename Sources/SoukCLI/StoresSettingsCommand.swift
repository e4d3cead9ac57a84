import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk stores set --app APP --store STORE --<key> VALUE …`: one store's settings for an app, the
/// same keys as the catalog file's `stores` object in kebab-case (`--private-key-path`,
/// `--shared-secret-env` …). Setting a `…-path` drops the `…-env` of the same secret and the
/// reverse; `--unset KEY` removes a key, `--remove` the whole store. Secrets are never given on
/// the command line: only where to read them.
struct StoresSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set an app's credentials for one store (the catalog file's stores object), by reference: secrets stay in files or the environment.")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app (bundle id / package name); it must have a catalog.") var app: String
    @Option(help: "apple_store, google_play, amazon or roku.") var store: String
    @Option(help: "Apple: the app's bundle id.") var bundleId: String?
    @Option(help: "Apple: the app's Apple ID (a number; required for production notifications).") var appAppleId: String?
    @Option(help: "Apple: the In-App Purchase key id.") var keyId: String?
    @Option(help: "Apple: the issuer id of the In-App Purchase key.") var issuerId: String?
    @Option(help: "Apple: the In-App Purchase key file (.p8).") var privateKeyPath: String?
    @Option(help: "Apple: the environment variable holding the In-App Purchase key (PEM).") var privateKeyEnv: String?
    @Option(help: "Apple: the id of the key that signs promotional offers.") var offerKeyId: String?
    @Option(help: "Apple: the promotional offer signing key file (.p8).") var offerPrivateKeyPath: String?
    @Option(help: "Apple: the environment variable holding the promotional offer signing key (PEM).") var offerPrivateKeyEnv: String?
    @Option(help: "Apple: true when the app asks consent to share consumption data; Souk then answers refund requests.")
    var sendConsumptionInfo: Bool?
    @Option(help: "Apple: the refund preference sent with each answer (decline, grant, prorated).") var refundPreference: String?
    @Option(help: "Apple: true when the app offers a free sample or trial before purchase.") var sampleContentProvided: Bool?
    @Option(help: "Google: the package name.") var packageName: String?
    @Option(help: "Google: the service account's JSON key file.") var serviceAccountPath: String?
    @Option(help: "Google: the environment variable holding the service account's JSON key.") var serviceAccountEnv: String?
    @Option(help: "Google: the file holding the RTDN push URL's token.") var rtdnTokenPath: String?
    @Option(help: "Google: the environment variable holding the RTDN push URL's token.") var rtdnTokenEnv: String?
    @Option(help: "Google: the push JWT's audience (when set, pushes must carry Google's OIDC token).") var pushAudience: String?
    @Option(help: "Google: the service account the push JWT must name.") var pushServiceAccountEmail: String?
    @Option(help: "Amazon: the file holding the RVS shared secret.") var sharedSecretPath: String?
    @Option(help: "Amazon: the environment variable holding the RVS shared secret.") var sharedSecretEnv: String?
    @Option(help: "Amazon: true to check every purchase at RVS's sandbox (App Tester).") var sandbox: Bool?
    @Option(help: "Roku: the file holding the partner API key.") var partnerApiKeyPath: String?
    @Option(help: "Roku: the environment variable holding the partner API key.") var partnerApiKeyEnv: String?
    @Option(name: .customLong("unset"), help: "Remove a key (kebab-case, e.g. push-audience); repeatable.") var unset: [String] = []
    @Flag(help: "Remove the store's settings for the app altogether.") var remove = false

    /// The file keys and values given, in the catalog file's camelCase.
    var changes: [(key: String, value: JSONValue?)] {
        let texts: [(String, String?)] = [
            ("bundleId", bundleId), ("keyId", keyId), ("issuerId", issuerId), ("privateKeyPath", privateKeyPath), ("privateKeyEnv", privateKeyEnv),
            ("offerKeyId", offerKeyId), ("offerPrivateKeyPath", offerPrivateKeyPath), ("offerPrivateKeyEnv", offerPrivateKeyEnv),
            ("packageName", packageName), ("serviceAccountPath", serviceAccountPath), ("serviceAccountEnv", serviceAccountEnv),
            ("rtdnTokenPath", rtdnTokenPath), ("rtdnTokenEnv", rtdnTokenEnv), ("pushAudience", pushAudience),
            ("pushServiceAccountEmail", pushServiceAccountEmail), ("sharedSecretPath", sharedSecretPath), ("sharedSecretEnv", sharedSecretEnv),
            ("partnerApiKeyPath", partnerApiKeyPath), ("partnerApiKeyEnv", partnerApiKeyEnv), ("refundPreference", refundPreference),
        ]
        var changes: [(key: String, value: JSONValue?)] = texts.compactMap { key, value in value.map { (key, .string($0)) } }
        if let appAppleId { changes.append(("appAppleId", .number(appAppleId))) }
        if let sandbox { changes.append(("sandbox", .bool(sandbox))) }
        if let sendConsumptionInfo { changes.append(("sendConsumptionInfo", .bool(sendConsumptionInfo))) }
        if let sampleContentProvided { changes.append(("sampleContentProvided", .bool(sampleContentProvided))) }
        changes += unset.map { (Self.camelCase($0), nil) }
        return changes
    }

    /// `private-key-path` → `privateKeyPath`.
    static func camelCase(_ kebab: String) -> String {
        let parts = kebab.split(separator: "-")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    func validate() throws {
        guard let named = CommerceStore(rawValue: store) else {
            throw ValidationError("Unknown store \(store) (known: \(CommerceStore.allCases.map(\.rawValue).joined(separator: ", "))).")
        }
        if let appAppleId, Int64(appAppleId) == nil {
            throw ValidationError("--app-apple-id must be a number (the app's Apple ID in App Store Connect).")
        }
        guard remove || !changes.isEmpty else { throw ValidationError("Give at least one setting, --unset KEY or --remove.") }
        guard !remove || changes.isEmpty else { throw ValidationError("--remove takes no other setting.") }
        let known = Set(CatalogFile.fileKeys(of: named))
        for change in changes where !known.contains(change.key) {
            throw ValidationError("\(store) has no setting \(change.key) (it has: \(known.sorted().joined(separator: ", "))).")
        }
    }

    func run() async throws {
        let store = CommerceStore(rawValue: self.store)!
        try await withRuntime(settings) { runtime in
            guard let state = try await runtime.commerceCatalogs.state(app: app) else {
                throw ValidationError("\(app) has no catalog; apply one first (souk catalog apply FILE).")
            }
            var stores: CommerceStoreSettings
            if remove {
                stores = state.catalog.stores ?? CommerceStoreSettings()
                switch store {
                case .appleStore: stores.apple = nil
                case .googlePlay: stores.googlePlay = nil
                case .amazon: stores.amazon = nil
                case .roku: stores.roku = nil
                }
            } else {
                do {
                    stores = try CatalogFile.settingStore(store, in: state.catalog.stores ?? CommerceStoreSettings(), changes)
                } catch let error as CatalogFileError {
                    throw ValidationError("\(error.path): \(error.message)")
                }
            }
            var catalog = state.catalog
            catalog.stores = stores
            let report = try await DeveloperOperations(runtime: runtime).applyCatalog(actor: .currentCLIUser, catalog: catalog, dryRun: false)
            print(report.description)
            print(StoresStatusCommand.render(app: app, stores: stores, statuses: []))
        }
    }
}

/// `souk stores status [--app APP]`: per app and store, whether it is set up (references only,
/// never a secret) and what the store last said — the last fault (the operator's credentials
/// refused, the store down) and when it last answered.
struct StoresStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Each app's stores: settings (by reference) and the last error each store gave.")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "Only this app.") var app: String?

    /// One line per configured or reporting store of the app.
    static func render(app: String, stores: CommerceStoreSettings, statuses: [StoreStatusStore.Status]) -> String {
        var rows: [[String]] = []
        for store in CommerceStore.allCases {
            let status = statuses.first { $0.store == store }
            guard stores.isConfigured(store) || status != nil else { continue }
            let state: String = if !stores.isConfigured(store) {
                "not set"
            } else if let status, status.isFailing {
                "failing"
            } else {
                "ok"
            }
            let lastError = status.flatMap { status in
                status.lastError.map { "\(Table.date(status.lastErrorAt)) \(status.lastErrorKind?.rawValue ?? "error"): \($0)" }
            } ?? "-"
            rows.append([app, store.rawValue, state, describe(store, in: stores), Table.date(status?.lastOkAt), lastError])
        }
        if rows.isEmpty { return "\(app): no store is set up (souk stores set, or the catalog file's stores)." }
        return Table(["APP", "STORE", "STATE", "SETTINGS", "LAST ANSWER", "LAST ERROR"], rows).render()
    }

    /// The settings of one store, references only.
    static func describe(_ store: CommerceStore, in stores: CommerceStoreSettings) -> String {
        func secret(_ name: String, _ reference: SecretReference?) -> String { "\(name)=\(reference?.description ?? "missing")" }
        switch store {
        case .appleStore:
            guard let apple = stores.apple else { return "-" }
            return ["bundleId=\(apple.bundleId ?? "(app)")", "appAppleId=\(apple.appAppleId.map(String.init) ?? "missing")",
                    apple.hasServerAPIKey ? "key \(apple.keyId ?? "")" : "no In-App Purchase key",
                    apple.privateKey.map { secret("privateKey", $0) } ?? "",
                    apple.offerKeyId.map { "offer key \($0)" } ?? "", apple.offerPrivateKey.map { secret("offerPrivateKey", $0) } ?? "",
                    apple.sendConsumptionInfo ? "sendConsumptionInfo refundPreference=\(apple.refundPreference?.rawValue ?? "none")" : ""]
                .filter { !$0.isEmpty }.joined(separator: " ")
        case .googlePlay:
            guard let google = stores.googlePlay else { return "-" }
            return ["packageName=\(google.packageName ?? "missing")", secret("serviceAccount", google.serviceAccount),
                    secret("rtdnToken", google.rtdnToken), google.pushAudience.map { "pushAudience=\($0)" } ?? ""]
                .filter { !$0.isEmpty }.joined(separator: " ")
        case .amazon:
            guard let amazon = stores.amazon else { return "-" }
            return "\(secret("sharedSecret", amazon.sharedSecret)) sandbox=\(amazon.sandbox)"
        case .roku:
            guard let roku = stores.roku else { return "-" }
            return secret("partnerApiKey", roku.partnerApiKey)
        }
    }

    func run() async throws {
        try await withRuntime(settings) { runtime in
            var apps = [String]()
            if let app { apps = [app] } else { apps = try await runtime.commerceCatalogs.store.apps() }
            let statuses = try await StoreStatusStore(database: runtime.database).list(app: app)
            var blocks: [String] = []
            for app in apps {
                guard let state = try await runtime.commerceCatalogs.state(app: app) else {
                    blocks.append("\(app): no catalog.")
                    continue
                }
                blocks.append(Self.render(app: app, stores: state.catalog.stores ?? CommerceStoreSettings(),
                                          statuses: statuses.filter { $0.app == app }))
            }
            print(blocks.isEmpty ? "No app has a catalog." : blocks.joined(separator: "\n"))
        }
    }
}
