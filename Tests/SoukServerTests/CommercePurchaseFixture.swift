import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukIntegrations
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// A Souk with the reader catalog, three accounts with access tokens (Alice, Bob, and Sam, a
/// sandbox account) and an Apple-shaped test chain configured as an extra root, for the purchase
/// path's HTTP tests. Purchases are signed with `chain`, exactly as the App Store signs them.
struct CommercePurchaseFixture: Sendable {
    static let app = CommerceCatalogSamples.readerApp
    let client: any TestClientProtocol
    let runtime: SoukRuntime
    let chain: AppleTestChain
    let alice: Person
    let bob: Person
    let sam: Person

    struct Person: Sendable {
        let email: String
        let account: UUID
        let token: String
    }

    /// - Parameters:
    ///   - verifyTimeoutMilliseconds: how long a purchase waits for its verdict before answering 202. A
    ///     minute by default: on a loaded machine a local verification can outlast seconds, and a 202 where
    ///     the test expects 201 leaves the intake to the worker (a different story). Tests of the 202 path
    ///     pass a short wait.
    ///   - verifiers: wraps the real Apple verifier (fakes: slow, throwing); nil: the configured verifiers.
    static func with(_ backend: TestBackend, catalog: CommerceCatalog = CommerceCatalogSamples.reader,
                     transferPolicy: TransferPolicy = .transfer, verifyTimeoutMilliseconds: Int = 60_000,
                     verifiers: FakeVerifiers? = nil, chain given: AppleTestChain? = nil, configure: @escaping (inout SoukConfig) -> Void = { _ in },
                     _ test: @escaping @Sendable (CommercePurchaseFixture) async throws -> Void) async throws {
        let chain = try given ?? AppleTestChain.make()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = try chain.writeRoot(in: URL(fileURLWithPath: folder.path))
        var storeVerifiers: StoreVerifiers?
        if let verifiers {
            storeVerifiers = StoreVerifiers(verifiers.make(try AppleStoreVerifier(additionalRootCertificatePaths: [root])))
        }
        let box = Box<(SoukRuntime, Person, Person, Person)>()
        try await ServerFixture.with(backend, configure: { config in
            config.commerce.appleRootCertificates = [root]
            config.commerce.transferPolicy = transferPolicy
            config.commerce.verifyTimeoutMilliseconds = verifyTimeoutMilliseconds
            configure(&config)
        }, prepare: { runtime, _ in
            _ = try await runtime.commerceCatalogs.apply(catalog)
            func person(_ email: String, sandbox: Bool = false) async throws -> Person {
                let account = AccountModel(email: email, passwordHash: "unused")
                account.sandbox = sandbox
                try await account.create(on: runtime.database.db)
                let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
                let token = try await runtime.tokens.exchange(subjectToken: grant, clientId: "iphone").get().accessToken
                return Person(email: email, account: try account.requireID(), token: token)
            }
            box.value = (runtime, try await person("alice@example.com"), try await person("bob@example.com"),
                         try await person("sam@example.com", sandbox: true))
        }, storeVerifiers: storeVerifiers) { client in
            let (runtime, alice, bob, sam) = box.value!
            try await test(CommercePurchaseFixture(client: client, runtime: runtime, chain: chain, alice: alice, bob: bob, sam: sam))
        }
    }

    /// Runs `body` with a fake App Store Server API (production only) signing with `chain`, and an
    /// Apple verifier that trusts `chain` and looks transactions up there with the In-App Purchase
    /// key the fake issued (`pageSize`: the fake's history page size).
    static func withAppStoreServerAPI(chain: AppleTestChain, pageSize: Int = 20,
                                      _ body: @escaping @Sendable (FakeAppStoreServerAPI, AppleStoreVerifier) async throws -> Void) async throws {
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: app, pageSize: pageSize)
        let keyPath = NSTemporaryDirectory() + "souk-iap-\(UUID().uuidString).p8"
        try fake.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyPath) }
        let settings = CommerceStoreSettings(apple: AppleStoreSettings(keyId: fake.keyId, issuerId: fake.issuerId, privateKey: .path(keyPath)))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            var endpoints = StoreEndpoints()
            endpoints.appStoreServerAPIBaseURL = production
            endpoints.appStoreServerAPISandboxBaseURL = sandbox
            endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), requestTimeout: .seconds(60))
            let apple = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]),
                                           settings: { _ in settings }, api: AppStoreServerAPIClient(endpoints: endpoints))
            try await body(fake, apple)
        }
    }

    /// Fake verifiers made around the real Apple verifier (a struct, so a trailing closure never lands here).
    struct FakeVerifiers: Sendable {
        let make: @Sendable (AppleStoreVerifier) -> [any StoreVerifier]
    }

    // MARK: Signed transactions

    func sku(_ productId: String) -> String {
        CommerceCatalogSamples.reader.products.first { $0.id == productId }?.skus[.appleStore] ?? "no-sku"
    }

    func type(_ productId: String) -> ProductType {
        CommerceCatalogSamples.reader.products.first { $0.id == productId }?.type ?? .nonConsumable
    }

    /// A transaction of a reader product, bought a minute ago (subscriptions: for a month).
    func transaction(_ productId: String, id: String = AppleTestTransaction.randomId(), original: String? = nil,
                     environment: String = "Production", purchased: Date = Date().addingTimeInterval(-60), expires: Date? = nil,
                     revoked: Date? = nil, signed: Date? = nil, quantity: Int = 1, bundleId: String = app) -> AppleTestTransaction {
        let type = type(productId)
        return AppleTestTransaction(bundleId: bundleId, productId: sku(productId), type: type, transactionId: id, originalTransactionId: original,
                                    environment: environment, purchaseDate: purchased, signedDate: signed,
                                    expiresDate: expires ?? (type == .autoRenewable ? purchased.addingTimeInterval(30 * 86_400) : nil),
                                    quantity: quantity, revocationDate: revoked, revocationReason: revoked == nil ? nil : 1)
    }

    // MARK: Requests

    /// Seed 003's event around `transaction`, as JSON (structured mode).
    func event(_ productId: String, _ transaction: AppleTestTransaction, id: String = UUID().uuidString, username: String? = nil,
               sku: String? = nil, claimedTransactionId: String? = nil, receipt: String? = nil) -> [String: Any] {
        var data: [String: Any] = [
            "transaction": ["storeProductId": sku ?? transaction.productId, "transactionId": claimedTransactionId ?? transaction.transactionId,
                            "userId": "abcd", "receipt": receipt ?? chain.signTransaction(transaction)],
            "itemId": "video_1", "productId": productId, "store": "apple_store", "platform": "ios",
        ]
        if let username { data["username"] = username }
        return ["specversion": "1.0", "type": "com.applicaster.payment.validate", "source": "reader://\(Self.app)/versions/1.0",
                "subject": "Purchased product id \(transaction.productId)", "id": id, "time": "2026-11-25T04:10:03Z",
                "datacontenttype": "applicastion/json", "data": data]
    }

    func post(_ event: [String: Any], as person: Person?, binary: Bool = false, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token = token ?? person?.token { headers[.authorization] = "Bearer \(token)" }
        let body: Data
        if binary {
            for key in ["specversion", "type", "source", "id", "subject", "time"] {
                if let value = event[key] as? String { headers[HTTPField.Name("ce-\(key)")!] = value }
            }
            headers[.contentType] = "application/json"
            body = try JSONSerialization.data(withJSONObject: event["data"]!)
        } else {
            headers[.contentType] = "application/cloudevents+json"
            body = try JSONSerialization.data(withJSONObject: event)
        }
        return try await client.execute(uri: "/commerce/\(Self.app)/transactions", method: .post, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// Posts a structured-mode event already serialized.
    func post(structured body: Data, as person: Person) async throws -> TestResponse {
        try await client.execute(uri: "/commerce/\(Self.app)/transactions", method: .post,
                                 headers: [.authorization: "Bearer \(person.token)", .contentType: "application/cloudevents+json"],
                                 body: ByteBuffer(bytes: body))
    }

    /// Buys `productId` for `person` (a fresh transaction unless given) and answers the response.
    func buy(_ productId: String, as person: Person, _ transaction: AppleTestTransaction? = nil, binary: Bool = false) async throws -> TestResponse {
        try await post(event(productId, transaction ?? self.transaction(productId)), as: person, binary: binary)
    }

    func get(_ path: String, as person: Person?, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token = token ?? person?.token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/commerce/\(Self.app)/\(path)", method: .get, headers: headers)
    }

    func postJSON(_ path: String, _ object: Any, as person: Person) async throws -> TestResponse {
        try await client.execute(uri: "/commerce/\(Self.app)/\(path)", method: .post,
                                 headers: [.authorization: "Bearer \(person.token)", .contentType: "application/json"],
                                 body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object)))
    }

    /// The product ids of `GET entitlements`.
    func entitlements(_ person: Person) async throws -> [String] {
        let response = try await get("entitlements", as: person)
        #expect(response.status == .ok)
        return try Self.json(response, as: [[String: String]].self).compactMap { $0["id"] }
    }

    func isEntitled(_ person: Person, to id: String) async throws -> Bool {
        let response = try await get("entitlement/\(id)", as: person)
        if response.status == .ok {
            #expect(try Self.json(response, as: [String: String].self) == ["type": "entitlement", "id": id])
            return true
        }
        #expect(response.status == .unauthorized)
        #expect(String(buffer: response.body) == #"{"status":401,"statusText":"Unauthorized"}"#)
        return false
    }

    static func json<T: Decodable>(_ response: TestResponse, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    /// The payment id of a 201/202 answer.
    static func paymentId(_ response: TestResponse) throws -> String {
        let document = try json(response, as: [String: [String: String]].self)
        #expect(document["data"]?["type"] == "payment")
        return try #require(document["data"]?["id"])
    }

    /// The problem type of a problem answer.
    static func problemType(_ response: TestResponse) throws -> String {
        #expect(response.headers[.contentType] == "application/problem+json")
        return try json(response, as: ProblemBody.self).type
    }

    struct ProblemBody: Decodable {
        var type: String
        var status: Int
        var detail: String
    }
}

/// A verifier that cannot answer its first `failures` calls: it throws (an outage) or, with
/// `delay`, answers too late; then it asks the real one.
final class FlakyVerifier: StoreVerifier {
    let inner: any StoreVerifier
    let delay: Duration?
    private let remaining: Mutex<Int>
    private let calls = Mutex(0)

    init(_ inner: any StoreVerifier, failures: Int, delay: Duration? = nil) {
        self.inner = inner
        self.delay = delay
        remaining = Mutex(failures)
    }

    var store: CommerceStore { inner.store }
    var callCount: Int { calls.withLock { $0 } }

    func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
        calls.withLock { $0 += 1 }
        let fails = remaining.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if fails {
            if let delay {
                try await Task.sleep(for: delay)
            } else {
                throw StoreOutage()
            }
        }
        return try await inner.verify(claim)
    }

    struct StoreOutage: Error {}
}
