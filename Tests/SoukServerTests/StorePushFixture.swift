import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukIntegrations
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// A Souk with the reader catalog set up for Amazon (RVS shared secret) and Roku (partner API key),
/// its store endpoints on local fakes: RVS and Roku Pay on one fake, Amazon SNS (certificate and
/// `SubscribeURL`) on another, whose `http://127.0.0.1` URLs the test's `amazonSnsCertUrlPattern` trusts.
struct StorePushFixture: Sendable {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app
    static let secret = "2:amazon-shared-secret-XYZ"
    static let rokuKey = "A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6E7F8"
    static let localPattern = #"^http://127\.0\.0\.1:[0-9]+/"#
    static let day: TimeInterval = 86_400

    let fixture: Fixture
    let rvs: FakeAmazonRVS
    let roku: FakeRoku
    let sns: FakeAmazonSNS
    /// Faults of RVS and Roku.
    let stores: StoreFaults
    /// Faults of SNS (its certificate, its `SubscribeURL`).
    let snsFaults: StoreFaults
    let snsBase: String

    /// `rokuDeadline` is two minutes unless a test is about the deadline: an answer that must arrive in
    /// time takes over fifteen seconds on a machine under heavy load.
    static func with(_ backend: TestBackend, pattern: String = localPattern, rokuDeadline: Duration = .seconds(120),
                     _ body: @escaping @Sendable (StorePushFixture) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let secretPath = folder.path + "/amazon-secret", keyPath = folder.path + "/roku-key"
        try secret.write(toFile: secretPath, atomically: true, encoding: .utf8)
        try rokuKey.write(toFile: keyPath, atomically: true, encoding: .utf8)
        var configured = CommerceCatalogSamples.reader
        configured.stores = CommerceStoreSettings(amazon: AmazonSettings(sharedSecret: .path(secretPath)),
                                                  roku: RokuSettings(partnerApiKey: .path(keyPath)))
        let catalog = configured
        let rvs = FakeAmazonRVS(sharedSecret: secret), roku = FakeRoku(partnerAPIKey: rokuKey), sns = try FakeAmazonSNS()
        let stores = StoreFaults(), snsFaults = StoreFaults()
        try await FakeStoreServer.run(faults: stores, routes: { router in rvs.routes(router); roku.routes(router) }) { storeBase in
            try await FakeStoreServer.run(faults: snsFaults, routes: sns.routes) { snsBase in
                try await Fixture.with(backend, catalog: catalog, configure: { config in
                    config.commerce.stores.amazonRVSBaseURL = storeBase
                    config.commerce.stores.amazonRVSSandboxBaseURL = storeBase
                    config.commerce.stores.rokuBaseURL = storeBase
                    config.commerce.stores.amazonSNSCertURLPattern = pattern
                    config.commerce.stores.rokuPushDeadline = rokuDeadline
                    config.commerce.stores.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), requestTimeout: .seconds(60))
                }) { fixture in
                    try await body(StorePushFixture(fixture: fixture, rvs: rvs, roku: roku, sns: sns, stores: stores,
                                                    snsFaults: snsFaults, snsBase: snsBase))
                }
            }
        }
    }

    // MARK: Store answers

    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// An RVS subscription receipt of the reader's monthly term.
    static func amazonSubscription(_ extra: [String: any Sendable] = [:]) -> [String: any Sendable] {
        var fields: [String: any Sendable] = ["productId": "reader.monthly", "termSku": "reader.monthly.term", "productType": "SUBSCRIPTION",
                                              "purchaseDate": ms(Date() - 10 * day), "renewalDate": ms(Date() + 20 * day),
                                              "autoRenewing": true, "quantity": 1, "testTransaction": false]
        for (key, value) in extra { fields[key] = value }
        return fields
    }

    /// A Roku `validate-transaction` answer for the reader's monthly plan.
    static func rokuSubscription(_ extra: [String: any Sendable] = [:]) -> [String: any Sendable] {
        var fields: [String: any Sendable] = ["productId": "reader-monthly", "productName": "Reader monthly", "purchaseType": "MonthlySub",
                                              "purchaseDate": FakeRoku.wcfDate(Date() - 10 * day, offset: "-0800"),
                                              "originalPurchaseDate": FakeRoku.wcfDate(Date() - 10 * day),
                                              "expirationDate": FakeRoku.wcfDate(Date() + 20 * day), "isEntitled": true,
                                              "cancelled": false, "purchaseStatus": "Active", "quantity": 1]
        for (key, value) in extra { fields[key] = value }
        return fields
    }

    // MARK: Requests

    /// Reports a purchase of the monthly plan at `store` for Alice (the intake verifies it at the fake).
    func buy(store: String, platform: String, sku: String, transactionId: String, userId: String? = nil) async throws -> TestResponse {
        var transaction: [String: Any] = ["storeProductId": sku, "transactionId": transactionId, "receipt": transactionId]
        if let userId { transaction["userId"] = userId }
        let event: [String: Any] = [
            "specversion": "1.0", "type": "com.applicaster.payment.validate", "source": "reader://\(Self.app)/versions/1.0",
            "subject": "Purchased product id \(sku)", "id": UUID().uuidString, "time": "2026-11-25T04:10:03Z",
            "datacontenttype": "application/json",
            "data": ["transaction": transaction, "itemId": "video_1", "productId": "reader.monthly", "store": store, "platform": platform]]
        return try await fixture.post(event, as: fixture.alice)
    }

    /// Posts to a push endpoint as the store does (SNS: `text/plain`).
    func push(_ store: String, _ body: String, app: String = app, contentType: String = "text/plain; charset=UTF-8") async throws -> TestResponse {
        try await fixture.client.execute(uri: "/commerce/\(app)/\(store)/notifications", method: .post,
                                         headers: [.contentType: contentType], body: ByteBuffer(string: body))
    }

    var notifications: StoreNotificationStore { StoreNotificationStore(database: fixture.runtime.database) }

    func stored(_ store: CommerceStore) async throws -> [StoredStoreNotification] {
        try await notifications.notifications(app: Self.app, store: store.rawValue)
    }

}
