/// A store secret that can be uploaded and kept sealed in the database instead of being named by a
/// file or an environment variable (docs/developers.md, "Store credentials"): which store it is
/// for, and which setting of that store's it stands in for.
public enum StoreCredentialKind: String, Sendable, Hashable, CaseIterable {
    /// Apple's In-App Purchase key (`.p8`) for the App Store Server API (`privateKey`).
    case appleServerAPIKey = "server-api-key"
    /// Google Play's service-account JSON key file (`serviceAccount`).
    case googleServiceAccount = "service-account"
    /// The token Google Play's RTDN push URL carries (`rtdnToken`).
    case googleRTDNToken = "rtdn-token"
    /// Amazon RVS's shared secret (`sharedSecret`).
    case amazonSharedSecret = "shared-secret"
    /// Roku Pay's partner API key (`partnerApiKey`).
    case rokuPartnerAPIKey = "partner-api-key"

    /// The store the secret is for.
    public var store: CommerceStore {
        switch self {
        case .appleServerAPIKey: .appleStore
        case .googleServiceAccount, .googleRTDNToken: .googlePlay
        case .amazonSharedSecret: .amazon
        case .rokuPartnerAPIKey: .roku
        }
    }

    /// The kind named by the `souk stores credentials` words: store `apple`, `google`, `amazon`
    /// or `roku` (or the store's own name, `apple_store` …) and the kind's raw value.
    public init?(store: String, kind: String) {
        guard let found = Self.allCases.first(where: { $0.rawValue == kind.lowercased() }),
              Self.storeWord(found.store) == store.lowercased() || found.store.rawValue == store.lowercased() else { return nil }
        self = found
    }

    /// The store's short name in commands and forms: `apple`, `google`, `amazon`, `roku`.
    public static func storeWord(_ store: CommerceStore) -> String {
        switch store {
        case .appleStore: "apple"
        case .googlePlay: "google"
        case .amazon: "amazon"
        case .roku: "roku"
        }
    }

    /// `google/service-account`: how lists, forms and audit entries name a kind.
    public var name: String { Self.storeWord(store) + "/" + rawValue }

    /// The kind of a `name`, else nil.
    public init?(name: String) {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        self.init(store: parts[0], kind: parts[1])
    }

    /// What a person uploads for this kind, in a form's and a command's words.
    public var summary: String {
        switch self {
        case .appleServerAPIKey: "App Store Server API key (.p8)"
        case .googleServiceAccount: "Google service account (JSON key file)"
        case .googleRTDNToken: "Google RTDN push token"
        case .amazonSharedSecret: "Amazon RVS shared secret"
        case .rokuPartnerAPIKey: "Roku partner API key"
        }
    }
}

/// A secret kept sealed in the database, opened when a store call needs it. The secret is held
/// only in memory, for the call; it never appears in `description`, in a log or when encoded.
public struct SealedSecret: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What may be shown of it (a key's id, a service account's email, the last characters).
    public var hint: String
    /// The opened secret; nil when it could not be opened (`failure` says why).
    let secret: String?
    let failure: String?

    /// A secret opened now.
    public init(hint: String, secret: String) {
        self.hint = hint
        self.secret = secret
        failure = nil
    }

    /// A sealed secret this process cannot open (a missing or other sealing key): a store call
    /// that needs it fails with `failure`, never with a verdict.
    public init(hint: String, failure: String) {
        self.hint = hint
        secret = nil
        self.failure = failure
    }

    public var description: String { "sealed credential \(hint)" }

    /// The secret, or why it cannot be had.
    func open() throws(StoreSettingsError) -> String {
        guard let secret else { throw StoreSettingsError(failure ?? "the sealed credential cannot be opened") }
        return secret
    }

    // Only the hint is ever written out: a decoded value holds no secret.
    enum CodingKeys: String, CodingKey { case hint }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(hint: try container.decode(String.self, forKey: .hint), failure: "a sealed credential is opened from the database only")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hint, forKey: .hint)
    }
}
