import AsyncHTTPClient
import Crypto
import Foundation
import NIOHTTP1
import SoukCore

/// What the App Store Server API said about one request that reached it: the answer, Apple's "not
/// found" (404: `TransactionIdNotFoundError` 4040010, `OriginalTransactionIdNotFoundError` 4040005,
/// account or app not found), or a request Apple refuses (400, e.g. `InvalidTransactionIdError`
/// 4000006). These are verdicts on the request; what is no verdict (401, 5xx, 429, timeouts) is a
/// thrown `StoreFault` instead, so a purchase is never refused because Apple or the key had a problem.
public enum AppleAPIAnswer<Value: Sendable>: Sendable {
    case found(Value)
    case notFound
    case invalid(errorCode: Int?, message: String)

    /// The value when found.
    public var value: Value? {
        if case .found(let value) = self { return value }
        return nil
    }
}

extension AppleAPIAnswer: Equatable where Value: Equatable {}

/// `StatusResponse` of Get All Subscription Statuses: every subscription group of the customer
/// with its latest transaction per original transaction.
public struct AppleSubscriptionStatuses: Codable, Sendable, Equatable {
    public struct Group: Codable, Sendable, Equatable {
        public var subscriptionGroupIdentifier: String?
        public var lastTransactions: [LastTransaction]

        public init(subscriptionGroupIdentifier: String?, lastTransactions: [LastTransaction]) {
            self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
            self.lastTransactions = lastTransactions
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subscriptionGroupIdentifier = try container.decodeIfPresent(String.self, forKey: .subscriptionGroupIdentifier)
            lastTransactions = try container.decodeIfPresent([LastTransaction].self, forKey: .lastTransactions) ?? []
        }
    }

    /// `LastTransactionsItem`: the status is kept raw (Apple may add values).
    public struct LastTransaction: Codable, Sendable, Equatable {
        public var status: Int?
        public var originalTransactionId: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?

        public init(status: Int?, originalTransactionId: String?, signedTransactionInfo: String?, signedRenewalInfo: String?) {
            self.status = status
            self.originalTransactionId = originalTransactionId
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
        }
    }

    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [Group]

    public init(environment: String?, bundleId: String?, appAppleId: Int64?, data: [Group]) {
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.data = data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
        data = try container.decodeIfPresent([Group].self, forKey: .data) ?? []
    }

    /// The latest transaction of the subscription `originalTransactionId`, whatever its group.
    public func lastTransaction(originalTransactionId: String) -> LastTransaction? {
        data.lazy.flatMap(\.lastTransactions).first { $0.originalTransactionId == originalTransactionId }
    }
}

/// One page of Get Transaction History (v2) or Get Refund History (v2).
public struct AppleHistoryPage: Codable, Sendable, Equatable {
    public var signedTransactions: [String]
    /// Asks for the next page.
    public var revision: String?
    public var hasMore: Bool
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: String?

    public init(signedTransactions: [String], revision: String?, hasMore: Bool, bundleId: String? = nil, appAppleId: Int64? = nil,
                environment: String? = nil) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        signedTransactions = try container.decodeIfPresent([String].self, forKey: .signedTransactions) ?? []
        revision = try container.decodeIfPresent(String.self, forKey: .revision)
        hasMore = try container.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
    }
}

/// The App Store Server API (spec §4.1), for lookups a signed transaction alone cannot answer: a
/// legacy intake that carries only a transaction id, a subscription's renewal state, a customer's
/// history and refunds (reconciliation). Every call is authenticated with a fresh ES256 JWT made
/// from the app's In-App Purchase key (Apple allows tokens of at most 60 minutes; Souk signs
/// 5-minute ones, so a leaked token is short-lived) and goes through `StoreHTTPClient`, which
/// retries timeouts, 5xx and 429. Apple's answers come back as `AppleAPIAnswer`; the signed data
/// in them is *not* verified here — callers verify it with `AppleSignedDataVerifier`.
public struct AppStoreServerAPIClient: Sendable {
    /// The app's In-App Purchase key (App Store Connect → Users and Access → Integrations).
    public struct Credentials: Sendable, Equatable {
        public var keyId: String
        public var issuerId: String
        /// The `.p8` file's PEM text. Never logged, never part of an error.
        public var privateKeyPEM: String
        /// The `bid` claim: the app the key is used for.
        public var bundleId: String

        public init(keyId: String, issuerId: String, privateKeyPEM: String, bundleId: String) {
            self.keyId = keyId
            self.issuerId = issuerId
            self.privateKeyPEM = privateKeyPEM
            self.bundleId = bundleId
        }

        /// The credentials an app's settings name, with the key read now (a rotated file is picked
        /// up without a restart); nil when the app has no key id, issuer id or key configured.
        /// - Throws: `StoreFault(.notConfigured)` when the key file or variable cannot be read.
        public static func configured(in settings: AppleStoreSettings?, app: String,
                                      environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreFault) -> Credentials? {
            guard let settings, let keyId = settings.keyId, let issuerId = settings.issuerId, let reference = settings.privateKey else {
                return nil
            }
            let pem: String
            do { pem = try reference.resolve(environment: environment) } catch {
                throw StoreFault(.notConfigured, "The In-App Purchase key of app \(app) cannot be read (\(reference.description)): \(error.description)")
            }
            return Credentials(keyId: keyId, issuerId: issuerId, privateKeyPEM: pem, bundleId: settings.bundleId ?? app)
        }
    }

    /// The audience every App Store Server API token names.
    public static let audience = "appstoreconnect-v1"
    /// Lifetime of the tokens Souk signs (Apple's limit is 60 minutes).
    public static let tokenLifetime: TimeInterval = 300
    /// A safety stop for paging: a history longer than this many pages is cut (20 transactions a page).
    static let maxPages = 500

    let http: StoreHTTPClient
    let endpoints: StoreEndpoints
    let now: @Sendable () -> Date

    public init(endpoints: StoreEndpoints, http: HTTPClient = .shared, now: @escaping @Sendable () -> Date = { Date() }) {
        self.endpoints = endpoints
        self.http = StoreHTTPClient(http: http, retry: endpoints.retry)
        self.now = now
    }

    /// The host of `environment`.
    public func baseURL(_ environment: CommerceEnvironment) -> String {
        switch environment {
        case .production: endpoints.appStoreServerAPIBaseURL
        case .sandbox: endpoints.appStoreServerAPISandboxBaseURL
        }
    }

    /// Get Transaction Info: `signedTransactionInfo` of one transaction.
    public func transactionInfo(_ transactionId: String, environment: CommerceEnvironment,
                                credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<String> {
        struct Body: Decodable { var signedTransactionInfo: String }
        let answer = try await get("/inApps/v1/transactions/\(AmazonRVSClient.escape(transactionId))", environment: environment,
                                   credentials: credentials, label: "App Store Server API transactions", as: Body.self)
        switch answer {
        case .found(let body): return .found(body.signedTransactionInfo)
        case .notFound: return .notFound
        case .invalid(let code, let message): return .invalid(errorCode: code, message: message)
        }
    }

    /// Get All Subscription Statuses, by any transaction id of the customer.
    public func subscriptionStatuses(_ anyTransactionId: String, environment: CommerceEnvironment,
                                     credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<AppleSubscriptionStatuses> {
        try await get("/inApps/v1/subscriptions/\(AmazonRVSClient.escape(anyTransactionId))", environment: environment,
                      credentials: credentials, label: "App Store Server API subscriptions", as: AppleSubscriptionStatuses.self)
    }

    /// One page of Get Transaction History (v2): the first page without `revision`, the next ones
    /// with the previous page's `revision`.
    public func history(_ transactionId: String, revision: String?, environment: CommerceEnvironment,
                        credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<AppleHistoryPage> {
        try await get("/inApps/v2/history/\(AmazonRVSClient.escape(transactionId))" + Self.query(revision: revision),
                      environment: environment, credentials: credentials, label: "App Store Server API history", as: AppleHistoryPage.self)
    }

    /// Every signed transaction of the customer's history, page after page while `hasMore`.
    /// Apple knowing no such transaction is an empty history.
    /// - Throws: `StoreFault` as every call, and `.unavailable` when Apple refuses a page (400): the
    ///   history is never returned cut short as if it were complete.
    public func allHistory(_ transactionId: String, environment: CommerceEnvironment,
                           credentials: Credentials) async throws(StoreFault) -> [String] {
        try await allPages(label: "history") { revision throws(StoreFault) in
            try await history(transactionId, revision: revision, environment: environment, credentials: credentials)
        }
    }

    /// One page of Get Refund History (v2).
    public func refundHistory(_ transactionId: String, revision: String?, environment: CommerceEnvironment,
                              credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<AppleHistoryPage> {
        try await get("/inApps/v2/refund/lookup/\(AmazonRVSClient.escape(transactionId))" + Self.query(revision: revision),
                      environment: environment, credentials: credentials, label: "App Store Server API refund lookup",
                      as: AppleHistoryPage.self)
    }

    /// Every refunded or revoked transaction of the customer (Get Refund History, all pages).
    /// Apple knowing no such transaction is no refund.
    public func refundLookup(_ transactionId: String, environment: CommerceEnvironment,
                             credentials: Credentials) async throws(StoreFault) -> [String] {
        try await allPages(label: "refund lookup") { revision throws(StoreFault) in
            try await refundHistory(transactionId, revision: revision, environment: environment, credentials: credentials)
        }
    }

    // MARK: - Token

    /// A bearer token for `credentials`: header `alg` ES256, `kid`, `typ` JWT; claims `iss`, `iat`,
    /// `exp` = `iat` + 300, `aud` appstoreconnect-v1, `bid`.
    /// - Throws: `StoreFault(.credentials)` when the key is not a P-256 private key in PEM.
    public func token(_ credentials: Credentials) throws(StoreFault) -> String {
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(pemRepresentation: credentials.privateKeyPEM) } catch {
            throw StoreFault(.credentials, "The In-App Purchase key \(credentials.keyId) is not a P-256 private key in PEM (.p8).")
        }
        struct Header: Encodable { var alg = "ES256"; var kid: String; var typ = "JWT" }
        struct Claims: Encodable { var iss: String; var iat: Int64; var exp: Int64; var aud: String; var bid: String }
        let issuedAt = Int64(now().timeIntervalSince1970.rounded(.down))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let header = try encoder.encode(Header(kid: credentials.keyId))
            let claims = try encoder.encode(Claims(iss: credentials.issuerId, iat: issuedAt, exp: issuedAt + Int64(Self.tokenLifetime),
                                                   aud: Self.audience, bid: credentials.bundleId))
            let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
            let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
            return input + "." + Base64URL.encode(signature)
        } catch {
            throw StoreFault(.credentials, "Signing a token with the In-App Purchase key \(credentials.keyId) failed.")
        }
    }

    // MARK: - Calls

    func get<Body: Decodable & Sendable>(_ path: String, environment: CommerceEnvironment, credentials: Credentials, label: String,
                                         as _: Body.Type) async throws(StoreFault) -> AppleAPIAnswer<Body> {
        try await call(.GET, path, body: nil, environment: environment, credentials: credentials, label: label).decoded(Body.self, label: label)
    }

    /// One authenticated call: the answer's body when Apple took the request (200, 202), its
    /// verdict when it refused it (400, 404); what is no verdict throws.
    func call(_ method: HTTPMethod, _ path: String, body: [UInt8]?, environment: CommerceEnvironment, credentials: Credentials,
              label: String) async throws(StoreFault) -> AppleAPIAnswer<[UInt8]> {
        try Self.answer(try await send(method, path, body: body, environment: environment, credentials: credentials, label: label),
                        label: label)
    }

    /// The signed request as sent, whatever Apple answered (timeouts, 5xx and 429 are retried, then thrown).
    func send(_ method: HTTPMethod, _ path: String, body: [UInt8]?, environment: CommerceEnvironment, credentials: Credentials,
              label: String) async throws(StoreFault) -> StoreResponse {
        let bearer = try token(credentials)
        var headers = [("Authorization", "Bearer \(bearer)"), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try await http.send(method, baseURL(environment) + path, headers: headers, body: body,
                                   label: "\(label) (\(environment.rawValue))")
    }

    private func allPages(label: String,
                          page: (String?) async throws(StoreFault) -> AppleAPIAnswer<AppleHistoryPage>) async throws(StoreFault) -> [String] {
        var transactions: [String] = []
        var revision: String?
        for _ in 0..<Self.maxPages {
            switch try await page(revision) {
            case .notFound:
                return transactions
            case .invalid(let code, let message):
                throw StoreFault(.unavailable, "Apple refused the \(label) request (errorCode \(code.map(String.init) ?? "none")): \(message)")
            case .found(let found):
                transactions += found.signedTransactions
                // A page that says there is more but gives no new revision would loop for ever.
                guard found.hasMore, let next = found.revision, next != revision else { return transactions }
                revision = next
            }
        }
        return transactions
    }

    static func query(revision: String?) -> String {
        guard let revision else { return "" }
        return "?revision=" + AmazonRVSClient.escape(revision)
    }

    /// Apple's `{"errorCode": 4000006, "errorMessage": "…"}`.
    static func error(in body: [UInt8]) -> (code: Int?, message: String?) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return (nil, nil) }
        return ((object["errorCode"] as? NSNumber)?.intValue, object["errorMessage"] as? String)
    }
}
