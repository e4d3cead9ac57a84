import Crypto
import Foundation
import Hummingbird
import Synchronization

/// The bearer token a fake App Store Server API accepted, decoded (for assertions).
public struct FakeAppStoreToken: Sendable, Equatable {
    public var alg: String?
    public var kid: String?
    public var typ: String?
    public var iss: String?
    public var aud: String?
    public var bid: String?
    public var iat: Int64?
    public var exp: Int64?
}

/// One environment (host) of the App Store Server API, in memory: it checks the bearer JWT as
/// Apple does (ES256 signature with the In-App Purchase key's public key, `kid`, `iss`,
/// `aud` appstoreconnect-v1, `bid`, a lifetime of at most 5 minutes, not expired) and answers 401
/// with no body otherwise; it answers Get Transaction Info, Get All Subscription Statuses, Get
/// Transaction History v2 and Get Refund History v2 with data signed by `AppleTestChain` at the
/// moment of the request, pages of `pageSize` with an opaque `revision`, 404 `4040010` for an
/// unknown transaction and 400 `4000006` for an id that is not a number.
///
/// Run a production and a sandbox fake together with `run(production:sandbox:…)`.
public final class FakeAppStoreServerAPI: Sendable {
    public let chain: AppleTestChain
    /// `Production` or `Sandbox`: what the signed data says.
    public let environment: String
    public let bundleId: String
    public let keyId: String
    public let issuerId: String
    /// The In-App Purchase key (the fake checks tokens against its public key).
    public let privateKey: P256.Signing.PrivateKey
    public let pageSize: Int
    let now: @Sendable () -> Date

    struct Entry {
        var transaction: AppleTestTransaction
        var account: String
    }

    struct Subscription {
        var status: Int?
        var renewal: AppleTestRenewalInfo?
    }

    struct State {
        var entries: [Entry] = []
        var subscriptions: [String: Subscription] = [:]
        var tokens: [FakeAppStoreToken] = []
        var signWithWrongKey = false
        var operations = Operations()
    }

    let state = Mutex(State())

    public init(chain: AppleTestChain, environment: String = "Production", bundleId: String, keyId: String = "FAKEKEY123",
                issuerId: String = "57246542-96fe-1a63-e053-0824d011072a", privateKey: P256.Signing.PrivateKey = .init(),
                pageSize: Int = 20, now: @escaping @Sendable () -> Date = { Date() }) {
        self.chain = chain
        self.environment = environment
        self.bundleId = bundleId
        self.keyId = keyId
        self.issuerId = issuerId
        self.privateKey = privateKey
        self.pageSize = pageSize
        self.now = now
    }

    /// The `.p8` text of the In-App Purchase key (PKCS#8 PEM).
    public var privateKeyPEM: String { privateKey.pemRepresentation }

    /// A transaction of the customer `account` (history and subscription statuses are per account).
    public func add(_ transaction: AppleTestTransaction, account: String = "customer") {
        state.withLock { $0.entries.append(Entry(transaction: transaction, account: account)) }
    }

    /// Replaces a known transaction (a refund, a renewal's new expiry).
    public func update(_ transaction: AppleTestTransaction) {
        state.withLock { state in
            for index in state.entries.indices where state.entries[index].transaction.transactionId == transaction.transactionId {
                state.entries[index].transaction = transaction
            }
        }
    }

    /// The status (1…5) and renewal info Get All Subscription Statuses answers for a subscription;
    /// without it the status is read from the latest transaction's dates and auto-renew is on.
    public func setSubscription(originalTransactionId: String, status: Int?, renewal: AppleTestRenewalInfo?) {
        state.withLock { $0.subscriptions[originalTransactionId] = Subscription(status: status, renewal: renewal) }
    }

    /// Signs every answer with a key that is not the chain's leaf: data that must be refused.
    public func signWithWrongKey(_ on: Bool = true) { state.withLock { $0.signWithWrongKey = on } }

    /// Every token accepted so far, decoded.
    public var acceptedTokens: [FakeAppStoreToken] { state.withLock { $0.tokens } }

    public func routes(_ router: Router<BasicRequestContext>) {
        router.get("/inApps/v1/transactions/:id") { request, context in
            try self.answer(request, context) { id, _ in
                guard let entry = self.entry(id) else { return nil }
                return ["signedTransactionInfo": self.sign(entry.transaction)]
            }
        }
        router.get("/inApps/v1/subscriptions/:id") { request, context in
            try self.answer(request, context) { id, _ in
                guard let entry = self.entry(id) else { return nil }
                return self.statuses(account: entry.account)
            }
        }
        router.get("/inApps/v2/history/:id") { request, context in
            try self.answer(request, context) { id, revision in
                guard let entry = self.entry(id) else { return nil }
                return try self.page(self.transactions(account: entry.account), revision: revision)
            }
        }
        router.get("/inApps/v2/refund/lookup/:id") { request, context in
            try self.answer(request, context) { id, revision in
                guard let entry = self.entry(id) else { return nil }
                return try self.page(self.transactions(account: entry.account).filter { $0.revocationDate != nil }, revision: revision)
            }
        }
        operationRoutes(router)
    }

    /// A production and a sandbox App Store Server API for the duration of `body`, which receives
    /// their base URLs (`StoreEndpoints.appStoreServerAPIBaseURL` / `…SandboxBaseURL`). A nil fake
    /// is a host that knows nothing (every path 404).
    public static func run(production: FakeAppStoreServerAPI?, sandbox: FakeAppStoreServerAPI?,
                           productionFaults: StoreFaults = StoreFaults(), sandboxFaults: StoreFaults = StoreFaults(),
                           _ body: @escaping @Sendable (_ productionURL: String, _ sandboxURL: String) async throws -> Void) async throws {
        try await FakeStoreServer.run(faults: productionFaults, routes: { production?.routes($0) }) { productionURL in
            try await FakeStoreServer.run(faults: sandboxFaults, routes: { sandbox?.routes($0) }) { sandboxURL in
                try await body(productionURL, sandboxURL)
            }
        }
    }

    // MARK: - Answers

    struct InvalidRevision: Error {}

    private func answer(_ request: Request, _ context: BasicRequestContext,
                        _ make: (_ id: String, _ revision: String?) throws -> Any?) throws -> Response {
        guard let token = authorize(request.headers[.authorization]) else {
            return Response(status: .unauthorized)
        }
        state.withLock { $0.tokens.append(token) }
        let id = context.parameters.get("id").flatMap { $0.removingPercentEncoding } ?? ""
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
            return FakeStoreServer.json(.badRequest, object: ["errorCode": 4_000_006, "errorMessage": "Invalid transaction id."])
        }
        let revision = request.uri.queryParameters.get("revision")
        do {
            guard let object = try make(id, revision) else {
                return FakeStoreServer.json(.notFound, object: ["errorCode": 4_040_010, "errorMessage": "Transaction id not found."])
            }
            return FakeStoreServer.json(object: object)
        } catch {
            return FakeStoreServer.json(.badRequest, object: ["errorCode": 4_000_005, "errorMessage": "Invalid request revision."])
        }
    }

    func entry(_ id: String) -> Entry? {
        state.withLock { state in
            state.entries.first { $0.transaction.transactionId == id || $0.transaction.originalTransactionId == id }
        }
    }

    private func transactions(account: String) -> [AppleTestTransaction] {
        state.withLock { $0.entries.filter { $0.account == account }.map(\.transaction) }
            .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
    }

    private func page(_ all: [AppleTestTransaction], revision: String?) throws -> [String: Any] {
        var start = 0
        if let revision {
            guard let data = Data(base64Encoded: revision), let text = String(data: data, encoding: .utf8), text.hasPrefix("offset:"),
                  let offset = Int(text.dropFirst(7)), offset >= 0, offset <= all.count else { throw InvalidRevision() }
            start = offset
        }
        let end = min(all.count, start + pageSize)
        let next = Data("offset:\(end)".utf8).base64EncodedString()
        return ["signedTransactions": all[start..<end].map(sign), "revision": next, "hasMore": end < all.count,
                "bundleId": bundleId, "environment": environment]
    }

    private func statuses(account: String) -> [String: Any] {
        let transactions = transactions(account: account).filter { $0.rawType == "Auto-Renewable Subscription" }
        var groups: [String: [[String: Any]]] = [:]
        for original in Set(transactions.map(\.originalTransactionId)).sorted() {
            guard let latest = transactions.last(where: { $0.originalTransactionId == original }) else { continue }
            let subscription = state.withLock { $0.subscriptions[original] }
            let status = subscription?.status ?? (latest.revocationDate != nil ? 5 : (latest.expiresDate ?? .distantPast) > now() ? 1 : 2)
            var renewal = subscription?.renewal ?? AppleTestRenewalInfo(originalTransactionId: original, productId: latest.productId,
                                                                        environment: environment, renewalDate: latest.expiresDate)
            renewal.signedDate = AppleTestTransaction.wholeMilliseconds(now())
            groups[latest.subscriptionGroupIdentifier ?? "", default: []].append([
                "status": status, "originalTransactionId": original,
                "signedTransactionInfo": sign(latest), "signedRenewalInfo": sign(renewal),
            ])
        }
        return ["environment": environment, "bundleId": bundleId,
                "data": groups.keys.sorted().map { ["subscriptionGroupIdentifier": $0, "lastTransactions": groups[$0] ?? []] }]
    }

    func sign(_ transaction: AppleTestTransaction) -> String {
        var signed = transaction
        signed.signedDate = AppleTestTransaction.wholeMilliseconds(now())
        return sign(AppleTestTransaction.encode(signed))
    }

    private func sign(_ renewal: AppleTestRenewalInfo) -> String {
        sign(AppleTestTransaction.encode(renewal))
    }

    private func sign(_ json: Data) -> String {
        let wrongKey = state.withLock { $0.signWithWrongKey }
        return chain.sign(json, signingKey: wrongKey ? P256.Signing.PrivateKey() : nil)
    }

    // MARK: - Token

    /// The token's claims when Apple would accept it, else nil.
    func authorize(_ header: String?) -> FakeAppStoreToken? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        let parts = header.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Self.base64URL(parts[0]), let claimsData = Self.base64URL(parts[1]),
              let signatureData = Self.base64URL(parts[2]),
              let head = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any],
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
              privateKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else { return nil }
        let token = FakeAppStoreToken(alg: head["alg"] as? String, kid: head["kid"] as? String, typ: head["typ"] as? String,
                                      iss: claims["iss"] as? String, aud: claims["aud"] as? String, bid: claims["bid"] as? String,
                                      iat: (claims["iat"] as? NSNumber)?.int64Value, exp: (claims["exp"] as? NSNumber)?.int64Value)
        let now = Int64(now().timeIntervalSince1970)
        guard token.alg == "ES256", token.kid == keyId, token.typ == "JWT", token.iss == issuerId,
              token.aud == "appstoreconnect-v1", token.bid == bundleId,
              let iat = token.iat, let exp = token.exp, exp > iat, exp - iat <= 300, exp > now, iat <= now + 60 else { return nil }
        return token
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
