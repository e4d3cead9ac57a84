import Foundation

/// Where a store secret is read from: a file (`…Path` in the catalog file) or an environment
/// variable (`…Env`), or a credential uploaded and sealed in the database (`sealed`, opened when
/// the settings are read for a store call). The reference is stored and shown; the secret never is.
public enum SecretReference: Sendable, Hashable, Codable {
    case path(String)
    case env(String)
    case sealed(SealedSecret)

    /// The secret, read now (a rotated file or variable is picked up without a restart).
    /// A file's trailing newline is dropped.
    public func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreSettingsError) -> String {
        switch self {
        case .path(let path):
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw StoreSettingsError("cannot read the secret file \(path)")
            }
            let secret = text.trimmingCharacters(in: .newlines)
            guard !secret.isEmpty else { throw StoreSettingsError("the secret file \(path) is empty") }
            return secret
        case .env(let name):
            guard let secret = environment[name], !secret.isEmpty else {
                throw StoreSettingsError("the environment variable \(name) is not set")
            }
            return secret
        case .sealed(let sealed):
            return try sealed.open()
        }
    }

    /// How the reference reads in output: `file /path`, `env NAME` or `sealed credential HINT`
    /// (never the secret).
    public var description: String {
        switch self {
        case .path(let path): "file \(path)"
        case .env(let name): "env \(name)"
        case .sealed(let sealed): sealed.description
        }
    }
}

/// A store setting that cannot be used, said without the secret.
public struct StoreSettingsError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Apple: the app's identity, and the In-App Purchase key for the App Store Server API.
public struct AppleStoreSettings: Sendable, Hashable {
    public var bundleId: String?
    /// Required to accept production notifications (spec §4.1 step 6).
    public var appAppleId: Int64?
    public var keyId: String?
    public var issuerId: String?
    /// The In-App Purchase key (`.p8`, PEM).
    public var privateKey: SecretReference?
    /// The key that signs promotional offers (StoreKit 1's signature and StoreKit 2's JWS, with
    /// `issuerId`): its id, and the key (`.p8`, PEM).
    public var offerKeyId: String?
    public var offerPrivateKey: SecretReference?

    public init(bundleId: String? = nil, appAppleId: Int64? = nil, keyId: String? = nil, issuerId: String? = nil,
                privateKey: SecretReference? = nil, offerKeyId: String? = nil, offerPrivateKey: SecretReference? = nil) {
        self.offerKeyId = offerKeyId
        self.offerPrivateKey = offerPrivateKey
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.keyId = keyId
        self.issuerId = issuerId
        self.privateKey = privateKey
    }

    /// The app asks people's consent to share consumption data, as Apple requires before Souk
    /// answers a refund request (CONSUMPTION_REQUEST) with Send Consumption Information.
    public var sendConsumptionInfo = false
    /// What the app would like Apple to decide on a refund request; nil: no preference is sent.
    public var refundPreference: RefundPreference?
    /// The app offers a free sample, trial or description of its content before purchase.
    public var sampleContentProvided = false

    /// `refundPreference` in the catalog file's words.
    public enum RefundPreference: String, Sendable, Hashable, CaseIterable {
        case decline
        case grant
        case prorated
    }

    /// Whether the App Store Server API can be called (key id, issuer id and key all set).
    public var hasServerAPIKey: Bool { keyId != nil && issuerId != nil && privateKey != nil }
}

/// Google Play: the package, the service account that reads its purchases, and RTDN's checks.
public struct GooglePlaySettings: Sendable, Hashable {
    public var packageName: String?
    /// The service account's JSON key file (`client_email`, `private_key`, `token_uri`).
    public var serviceAccount: SecretReference?
    /// The shared token RTDN's push URL carries (`?token=`).
    public var rtdnToken: SecretReference?
    /// When set, a push must also carry a Google-signed OIDC JWT with this `aud`.
    public var pushAudience: String?
    /// When set with `pushAudience`, the push JWT's `email` must be this service account.
    public var pushServiceAccountEmail: String?

    public init(packageName: String? = nil, serviceAccount: SecretReference? = nil, rtdnToken: SecretReference? = nil,
                pushAudience: String? = nil, pushServiceAccountEmail: String? = nil) {
        self.packageName = packageName
        self.serviceAccount = serviceAccount
        self.rtdnToken = rtdnToken
        self.pushAudience = pushAudience
        self.pushServiceAccountEmail = pushServiceAccountEmail
    }
}

/// Amazon Appstore RVS.
public struct AmazonSettings: Sendable, Hashable {
    public var sharedSecret: SecretReference?
    /// Every purchase of the app is checked at RVS's sandbox path (App Tester), as are sandbox accounts'.
    public var sandbox: Bool

    public init(sharedSecret: SecretReference? = nil, sandbox: Bool = false) {
        self.sharedSecret = sharedSecret
        self.sandbox = sandbox
    }
}

/// Roku Pay's web services.
public struct RokuSettings: Sendable, Hashable {
    public var partnerApiKey: SecretReference?

    public init(partnerApiKey: SecretReference? = nil) {
        self.partnerApiKey = partnerApiKey
    }
}

/// The catalog file's `stores` object: each store's credentials for one app.
public struct CommerceStoreSettings: Sendable, Hashable {
    public var apple: AppleStoreSettings?
    public var googlePlay: GooglePlaySettings?
    public var amazon: AmazonSettings?
    public var roku: RokuSettings?

    public init(apple: AppleStoreSettings? = nil, googlePlay: GooglePlaySettings? = nil, amazon: AmazonSettings? = nil, roku: RokuSettings? = nil) {
        self.apple = apple
        self.googlePlay = googlePlay
        self.amazon = amazon
        self.roku = roku
    }

    public var isEmpty: Bool { apple == nil && googlePlay == nil && amazon == nil && roku == nil }

    /// Whether `store` has settings for this app.
    public func isConfigured(_ store: CommerceStore) -> Bool {
        switch store {
        case .appleStore: apple != nil
        case .googlePlay: googlePlay != nil
        case .amazon: amazon != nil
        case .roku: roku != nil
        }
    }
}

/// Each store's settings for an app, as the catalogs hold them now (the verifiers ask per claim,
/// so a `souk stores set` reaches every process within the catalog refresh interval).
/// nil: the app has no catalog.
public typealias StoreSettingsProvider = @Sendable (_ app: String) async throws -> CommerceStoreSettings?
