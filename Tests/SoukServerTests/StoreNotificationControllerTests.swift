import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import SoukApp
@testable import SoukServer
import SoukCore
import SoukIntegrations
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// The push routes on both databases: an authentic notification of the app is stored once and
/// answered at once (200, also for a copy); anything not proven to be the app's is refused with a
/// 4xx and stores nothing. Processing is the worker's (not exercised here).
@Suite struct StoreNotificationControllerTests {
    static let app = CommerceCatalogSamples.readerApp
    static let signed = Date(timeIntervalSince1970: 1_800_000_000)
    static let rtdnToken = "s3cret-push-token-0123456789"

    struct Notification: Encodable {
        struct Payload: Encodable {
            var environment: String
            var appAppleId: Int64?
            var bundleId: String
            var signedTransactionInfo: String?
            var status: Int? = 1
        }
        var notificationType: String
        var subtype: String?
        var notificationUUID: String
        var data: Payload
        var version = "2.0"
        var signedDate: Date
    }

    final class Rings: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func ring() { value.withLock { $0 += 1 } }
    }

    struct Context {
        let client: any TestClientProtocol
        let store: StoreNotificationStore
        let chain: AppleTestChain
        let rings: Rings

        func notifications() async throws -> [StoredStoreNotification] {
            try await store.notifications(app: StoreNotificationControllerTests.app)
        }

        func appleBody(type: String = "DID_RENEW", subtype: String? = nil, uuid: String = UUID().uuidString, environment: String = "Sandbox",
                       appAppleId: Int64? = nil, bundleId: String = StoreNotificationControllerTests.app,
                       signed: Date = StoreNotificationControllerTests.signed, tamper: Bool = false) -> String {
            let inner = chain.signTransaction(AppleTestTransaction(bundleId: bundleId, productId: "com.example.reader.monthly",
                                                                   type: .autoRenewable, environment: environment))
            let note = Notification(notificationType: type, subtype: subtype, notificationUUID: uuid,
                                    data: .init(environment: environment, appAppleId: appAppleId, bundleId: bundleId, signedTransactionInfo: inner),
                                    signedDate: signed)
            let jws = tamper ? chain.sign(note, signingKey: .init()) : chain.sign(note)
            return "{\"signedPayload\":\"\(jws)\"}"
        }

        func postApple(_ body: String, app: String = StoreNotificationControllerTests.app) async throws -> TestResponse {
            try await client.execute(uri: "/commerce/\(app)/apple/notifications", method: .post,
                                     headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
        }

        func postGoogle(_ body: String, token: String?, bearer: String? = nil) async throws -> TestResponse {
            var headers: HTTPFields = [.contentType: "application/json"]
            if let bearer { headers[.authorization] = "Bearer \(bearer)" }
            let query = token.map { "?token=\($0)" } ?? ""
            return try await client.execute(uri: "/commerce/\(StoreNotificationControllerTests.app)/google/rtdn\(query)", method: .post,
                                            headers: headers, body: ByteBuffer(string: body))
        }
    }

    static func push(messageId: String, package: String = app, notification: [String: Any] = [
        "subscriptionNotification": ["version": "1.0", "notificationType": 2, "purchaseToken": "tok-1", "subscriptionId": "monthly"]],
                     eventMillis: String = "1800000000000") -> String {
        var inner: [String: Any] = ["version": "1.0", "packageName": package, "eventTimeMillis": eventMillis]
        inner.merge(notification) { $1 }
        let data = try! JSONSerialization.data(withJSONObject: inner).base64EncodedString()
        let envelope: [String: Any] = ["message": ["data": data, "messageId": messageId, "publishTime": "2027-01-15T08:00:00.123Z"],
                                       "subscription": "projects/p/subscriptions/souk"]
        return String(decoding: try! JSONSerialization.data(withJSONObject: envelope), as: UTF8.self)
    }

    /// The push JWT check (a struct, so a trailing closure never lands here).
    struct PushCheck: Sendable {
        let check: StoreNotificationController<BasicRequestContext>.PushTokenCheck
    }

    static func with(_ backend: TestBackend, settings: CommerceStoreSettings? = nil,
                     pushToken: PushCheck? = nil, queueUnreachable: Bool = false,
                     _ body: @escaping @Sendable (Context) async throws -> Void) async throws {
        let chain = try AppleTestChain.make()
        try await StoreFixture.with(backend) { fixture in
            let logger = Logger(label: "test")
            let catalogs = CommerceCatalogCache(store: CommerceCatalogStore(database: fixture.database), logger: logger)
            _ = try await catalogs.apply(CommerceCatalogSamples.reader)
            // Port 1 on the loopback: nothing listens, so storing is an outage.
            let down = queueUnreachable
                ? try SoukDatabase(location: .postgres(url: "postgres://souk:souk@127.0.0.1:1/souk?sslmode=disable"), logger: logger) : nil
            defer { if let down { Task { await down.shutdown() } } }
            let store = StoreNotificationStore(database: down ?? fixture.database)
            let rings = Rings()
            let router = Router(context: BasicRequestContext.self)
            router.add(middleware: ProblemMiddleware())
            let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
            StoreNotificationController<BasicRequestContext>(
                catalogs: catalogs, settings: { app in app == Self.app ? settings : nil }, apple: verifier, notifications: store,
                pushToken: pushToken?.check, ring: { rings.ring() })
                .addRoutes(to: router)
            try await Application(router: router).test(.router) { client in
                try await body(Context(client: client, store: store, chain: chain, rings: rings))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func appleNotificationIsStoredOnceAndAnsweredAtOnce(backend: TestBackend) async throws {
        try await Self.with(backend) { (context: Context) async throws in
            let body = context.appleBody(type: "DID_RENEW", subtype: "BILLING_RECOVERY", uuid: "uuid-1")
            let first = try await context.postApple(body)
            #expect(first.status == .ok && String(buffer: first.body) == "{}")
            // Apple's retry of the same notification: 200, nothing new.
            let again = try await context.postApple(body)
            #expect(again.status == .ok)
            let stored = try await context.notifications()
            #expect(stored.count == 1)
            let row = try #require(stored.first)
            #expect(row.received.notificationId == "uuid-1" && row.received.type == "DID_RENEW")
            #expect(row.received.subtype == "BILLING_RECOVERY" && row.received.environment == "Sandbox")
            #expect(row.received.signedDate == Self.signed && row.received.payload == body && row.status == .queued)
            #expect(context.rings.count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func testAndUnknownTypesAreStoredNotRefused(backend: TestBackend) async throws {
        try await Self.with(backend) { (context: Context) async throws in
            #expect(try await context.postApple(context.appleBody(type: "TEST", uuid: "t-1")).status == .ok)
            #expect(try await context.postApple(context.appleBody(type: "SOMETHING_NEW_IN_2028", uuid: "u-1")).status == .ok)
            #expect(Set(try await context.notifications().map(\.received.type)) == ["TEST", "SOMETHING_NEW_IN_2028"])
        }
    }

    @Test(arguments: TestBackend.available)
    func unprovenAppleNotificationsAreRefusedAndStoreNothing(backend: TestBackend) async throws {
        try await Self.with(backend, settings: CommerceStoreSettings(apple: AppleStoreSettings(appAppleId: 1_234_567_890))) { (context: Context) async throws in
            #expect(try await context.postApple(context.appleBody(tamper: true)).status == .unauthorized)
            #expect(try await context.postApple(context.appleBody(bundleId: "com.example.other")).status == .forbidden)
            #expect(try await context.postApple(context.appleBody(environment: "Production", appAppleId: 42)).status == .forbidden)
            #expect(try await context.postApple("{\"signedPayload\":\"not-a-jws\"}").status == .unauthorized)
            #expect(try await context.postApple("hello").status == .badRequest)
            #expect(try await context.postApple(context.appleBody(), app: "com.example.unknown").status == .notFound)
            #expect(try await context.notifications().isEmpty)
            #expect(try await context.postApple(context.appleBody(environment: "Production", appAppleId: 1_234_567_890)).status == .ok)
            #expect(try await context.notifications().count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func productionNeedsAppAppleIdConfigured(backend: TestBackend) async throws {
        try await Self.with(backend) { (context: Context) async throws in
            #expect(try await context.postApple(context.appleBody(environment: "Production", appAppleId: 1_234_567_890)).status == .forbidden)
            #expect(try await context.notifications().isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func googlePushNeedsTheTokenAndIsDeduplicatedOnMessageId(backend: TestBackend) async throws {
        let settings = CommerceStoreSettings(googlePlay: GooglePlaySettings(rtdnToken: .env("SOUK_TEST_UNSET_RTDN_TOKEN")))
        try await Self.with(backend, settings: settings) { (context: Context) async throws in
            // The token's variable is not set: nothing can match, so every push is refused.
            #expect(try await context.postGoogle(Self.push(messageId: "m-0"), token: "anything").status == .unauthorized)
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tokenFile = folder.path + "/rtdn-token"
        try (Self.rtdnToken + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let configured = CommerceStoreSettings(googlePlay: GooglePlaySettings(packageName: Self.app, rtdnToken: .path(tokenFile)))
        try await Self.with(backend, settings: configured) { (context: Context) async throws in
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: nil).status == .unauthorized)
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: "wrong").status == .unauthorized)
            #expect(try await context.notifications().isEmpty)
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: Self.rtdnToken).status == .ok)
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: Self.rtdnToken).status == .ok)
            #expect(try await context.postGoogle(Self.push(messageId: "m-2", package: "com.example.other"), token: Self.rtdnToken).status == .badRequest)
            #expect(try await context.postGoogle("{\"message\":{}}", token: Self.rtdnToken).status == .badRequest)
            let voided = Self.push(messageId: "m-3", notification: ["voidedPurchaseNotification": ["purchaseToken": "tok-1", "orderId": "GPA.1", "productType": 1]])
            #expect(try await context.postGoogle(voided, token: Self.rtdnToken).status == .ok)
            let stored = try await context.notifications()
            #expect(stored.count == 2)
            let renewal = try #require(stored.first { $0.received.notificationId == "m-1" })
            #expect(renewal.received.store == "google_play" && renewal.received.type == "subscriptionNotification")
            #expect(renewal.received.subtype == "2" && renewal.received.signedDate == Self.signed)
            #expect(stored.first { $0.received.notificationId == "m-3" }?.received.type == "voidedPurchaseNotification")
        }
    }

    @Test(arguments: TestBackend.available)
    func googlePushJWTIsCheckedWhenAnAudienceIsConfigured(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tokenFile = folder.path + "/rtdn-token"
        try Self.rtdnToken.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let settings = CommerceStoreSettings(googlePlay: GooglePlaySettings(rtdnToken: .path(tokenFile), pushAudience: "https://souk.example.com/rtdn",
                                                                            pushServiceAccountEmail: "push@p.iam.gserviceaccount.com"))
        try await Self.with(backend, settings: settings, pushToken: PushCheck { bearer, audience, email in
            bearer == "good-jwt" && audience == "https://souk.example.com/rtdn" && email == "push@p.iam.gserviceaccount.com"
        }) { (context: Context) async throws in
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: Self.rtdnToken).status == .unauthorized)
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: Self.rtdnToken, bearer: "forged").status == .unauthorized)
            #expect(try await context.notifications().isEmpty)
            #expect(try await context.postGoogle(Self.push(messageId: "m-1"), token: Self.rtdnToken, bearer: "good-jwt").status == .ok)
        }
    }

    @Test func aDatabaseOutageIsA503SoTheStoreRetries() async throws {
        try await Self.with(.sqlite, queueUnreachable: true) { (context: Context) async throws in
            let response = try await context.postApple(context.appleBody(uuid: "uuid-503"))
            #expect(response.status == .serviceUnavailable)
            #expect(context.rings.count == 0)
        }
    }

    @Test func pubSubEnvelopeFallsBackToPublishTime() throws {
        let push = try PubSubPush.parse(Self.push(messageId: "m-9", notification: ["testNotification": ["version": "1.0"]], eventMillis: "x"))
        #expect(push.type == "testNotification" && push.subtype == nil)
        #expect(abs(push.eventTime.timeIntervalSince1970 - 1_800_000_000.123) < 0.001)
    }
}
