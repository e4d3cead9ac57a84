import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SoukApp
import SoukCore
import SoukIntegrations
import SoukServer
@testable import SoukStore
import SoukTestSupport
import Testing

/// Google Play's voided purchases, refunds asked of Google from the console and `souk purchases
/// refund`, and one-time products v2, through the real server against `FakeGooglePlay`, on both
/// databases.
@Suite struct GooglePlayVoidedAndRefundsTests {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app

    /// The reader catalog with a Google SKU for its coins.
    static var catalog: CommerceCatalog {
        var catalog = CommerceCatalogSamples.reader
        if let index = catalog.products.firstIndex(where: { $0.id == "reader.coins.100" }) {
            catalog.products[index].skus[.googlePlay] = "coins_100"
        }
        return catalog
    }

    struct Rig: Sendable {
        let fixture: Fixture
        let fake: FakeGooglePlay
        let faults: StoreFaults
        let google: GooglePlayStoreVerifier

        var purchases: PurchaseStore { fixture.runtime.purchases }
        var positions: GoogleVoidedPositionStore { GoogleVoidedPositionStore(database: fixture.runtime.database) }

        func poller(holder: String, pagesPerRun: Int = 50) -> GoogleVoidedPurchasesPoller {
            let database = fixture.runtime.database
            return GoogleVoidedPurchasesPoller(google: google, positions: positions, purchases: purchases,
                                               apps: { try await CommerceCatalogStore(database: database).apps() },
                                               lease: MaintenanceLease(database: database), storeStatus: StoreStatusStore(database: database),
                                               holder: holder, pagesPerRun: pagesPerRun, logger: testLogger())
        }

        /// Reports a Google purchase as the app does; answers its payment id.
        func buy(_ person: Fixture.Person, _ productId: String, sku: String, token: String, order: String) async throws -> UUID {
            var event = fixture.event(productId, fixture.transaction(productId))
            var data = event["data"] as! [String: Any]
            data["store"] = "google_play"
            data["platform"] = "android"
            data["transaction"] = ["storeProductId": sku, "transactionId": order, "receipt": token]
            event["data"] = data
            let response = try await fixture.post(event, as: person)
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let bought = try await purchases.list(account: person.account, app: GooglePlayVoidedAndRefundsTests.app)
            return try #require(bought.first { $0.transactionId == order }?.paymentId)
        }

        /// The server lists the voided purchases once as it starts: the test begins when that run is over.
        func afterTheServersFirstListing() async throws {
            try await eventually("the server's first listing") {
                try await positions.position(app: GooglePlayVoidedAndRefundsTests.app) != nil
            }
            let lease = MaintenanceLease(database: fixture.runtime.database)
            try await eventually("the server's listing released its lease") {
                try await lease.claim("google-voided:\(GooglePlayVoidedAndRefundsTests.app)", holder: "probe", for: 60)
            }
            try await lease.release("google-voided:\(GooglePlayVoidedAndRefundsTests.app)", holder: "probe")
        }
    }

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (Rig) async throws -> Void) async throws {
        let fake = try FakeGooglePlay(packageName: app)
        let folder = NSTemporaryDirectory() + "souk-google-\(UUID().uuidString)"
        let keyPath = try fake.writeServiceAccount(into: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            var endpoints = StoreEndpoints()
            endpoints.googlePlayBaseURL = base
            endpoints.googleOAuthTokenURL = base + "/token"
            endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 2, requestTimeout: .seconds(60))
            let settings = CommerceStoreSettings(googlePlay: GooglePlaySettings(packageName: app, serviceAccount: .path(keyPath)))
            let google = GooglePlayStoreVerifier(settings: { _ in settings }, endpoints: endpoints)
            try await Fixture.with(backend, catalog: Self.catalog, verifiers: .init(make: { apple in [apple, google] })) { fixture in
                try await body(Rig(fixture: fixture, fake: fake, faults: faults, google: google))
            }
        }
    }

    static func refunds(_ rig: Rig) async throws -> [CommerceEvent] {
        var events: [CommerceEvent] = []
        for person in [rig.fixture.alice, rig.fixture.bob] {
            events += try await CommerceEventStore(database: rig.fixture.runtime.database).list(account: person.account, app: app, limit: 100)
                .filter { $0.type == .refund }
        }
        return events
    }

    // MARK: Voided purchases

    @Test(arguments: TestBackend.available)
    func voidedPurchasesRevokeWithoutANotificationAndAListingResumesWhereItStopped(_ backend: TestBackend) async throws {
        try await Self.with(backend) { rig in
            let fixture = rig.fixture, fake = rig.fake
            try await rig.afterTheServersFirstListing()
            let bought = Date().addingTimeInterval(-3600)
            fake.addProduct(token: "book-a", FakeGoogleProduct(productId: "book_1", orderId: "GPA.A", purchaseTime: bought))
            fake.addProduct(token: "book-b", FakeGoogleProduct(productId: "book_1", orderId: "GPA.B", purchaseTime: bought))
            fake.addProduct(token: "coins-b", FakeGoogleProduct(productId: "coins_100", orderId: "GPA.C", purchaseTime: bought, quantity: 3))
            fake.addSubscription(token: "sub-a", FakeGoogleSubscription(productId: "monthly", startTime: bought, expiryTime: Date() + 29 * 86_400,
                                                                        latestOrderId: "GPA.S"))
            let bookA = try await rig.buy(fixture.alice, "reader.book.1", sku: "book_1", token: "book-a", order: "GPA.A")
            _ = try await rig.buy(fixture.bob, "reader.book.1", sku: "book_1", token: "book-b", order: "GPA.B")
            let coins = try await rig.buy(fixture.bob, "reader.coins.100", sku: "coins_100", token: "coins-b", order: "GPA.C")
            _ = try await rig.buy(fixture.alice, "reader.monthly", sku: "monthly", token: "sub-a", order: "GPA.S")
            #expect(try await fixture.isEntitled(fixture.alice, to: "book.1"))
            #expect(try await fixture.isEntitled(fixture.alice, to: "premium"))
            #expect(try await rig.purchases.balances(account: fixture.bob.account, app: Self.app).map(\.balance) == [3])

            // Google voids them; no notification reaches Souk.
            fake.voidProduct(token: "book-a", reason: 7)
            fake.voidProduct(token: "book-b")
            fake.voidProduct(token: "coins-b", quantity: 1)
            fake.addVoided(FakeGoogleVoided(purchaseToken: "sub-a", orderId: "GPA.S", purchaseTime: bought, voidedTime: Date(), subscription: true))
            fake.addVoided(FakeGoogleVoided(purchaseToken: "never-reported", orderId: "GPA.X", purchaseTime: bought, voidedTime: Date()))
            fake.setVoidedPageSize(2)

            // One page, then the process stops: the next page's token is kept.
            let first = await rig.poller(holder: "first", pagesPerRun: 1).run()
            #expect(first.apps == 1 && first.read == 2 && first.failed == 0)
            let stopped = try #require(try await rig.positions.position(app: Self.app))
            #expect(stopped.pageToken != nil && stopped.pageStartMillis != nil)
            // Another process (a restart) goes on from that page.
            let asked = rig.faults.requests(matching: "/purchases/voidedpurchases").count
            let rest = await rig.poller(holder: "second").run()
            let queries = rig.faults.requests(matching: "/purchases/voidedpurchases").map(\.query)
            #expect(rest.read == 3 && rest.failed == 0, "\(first) \(rest) \(asked) \(queries)")
            #expect(queries.count == asked + 2 && queries[asked].contains("token=\(stopped.pageToken ?? "-")"))
            #expect(queries.allSatisfy { $0.contains("type=1") && $0.contains("includeQuantityBasedPartialRefund=true") })
            #expect(first.revoked + rest.revoked == 3 && first.partial + rest.partial == 1 && first.unmatched + rest.unmatched == 1)

            #expect(try await !fixture.isEntitled(fixture.alice, to: "book.1"))
            #expect(try await !fixture.isEntitled(fixture.alice, to: "premium"))
            #expect(try await !fixture.isEntitled(fixture.bob, to: "book.1"))
            #expect(try await rig.purchases.payment(bookA)?.revocationReason == "voided: chargeback")
            // A partial refund takes back what it refunded; the purchase stays.
            #expect(try await rig.purchases.balances(account: fixture.bob.account, app: Self.app).map(\.balance) == [2])
            #expect(try await rig.purchases.payment(coins)?.revokedAt == nil)
            let position = try #require(try await rig.positions.position(app: Self.app))
            #expect(position.pageToken == nil && position.highWaterMillis != nil)

            // Seen again (the listing overlaps the last one): nothing changes.
            let refunds = try await Self.refunds(rig)
            let again = await rig.poller(holder: "third").run()
            #expect(again.read == 5 && again.revoked == 0 && again.partial == 0 && again.failed == 0)
            #expect(try await rig.purchases.balances(account: fixture.bob.account, app: Self.app).map(\.balance) == [2])
            #expect(try await Self.refunds(rig).count == refunds.count)

            // Google down: no answer, nothing moves; asked again next time from the same place.
            rig.faults.down(status: 503)
            let down = await rig.poller(holder: "fourth").run()
            #expect(down.failed == 1 && down.read == 0)
            rig.faults.recover()
            #expect(try await rig.positions.position(app: Self.app) == position)

            // A page token Google no longer takes: the listing starts again.
            try await rig.positions.save(app: Self.app, GoogleVoidedPosition(highWaterMillis: position.highWaterMillis, pageToken: "expired",
                                                                              pageStartMillis: position.highWaterMillis), at: Date())
            let restarted = await rig.poller(holder: "fifth").run()
            #expect(restarted.failed == 0 && restarted.read == 5)
            #expect(try await rig.positions.position(app: Self.app)?.pageToken == nil)

            // Another process holds the app's listing: this one leaves it. (The server's own listing,
            // every five minutes, may hold the lease for a moment when the test has run that long.)
            let lease = MaintenanceLease(database: fixture.runtime.database)
            try await eventually("another process holds the listing's lease") {
                try await lease.claim("google-voided:\(Self.app)", holder: "elsewhere", for: 60)
            }
            #expect(await rig.poller(holder: "sixth").run().apps == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPartialRefundNotificationLeavesThePurchaseAndTheListingTakesBackItsQuantity(_ backend: TestBackend) async throws {
        try await Self.with(backend) { rig in
            let fixture = rig.fixture, fake = rig.fake
            try await rig.afterTheServersFirstListing()
            fake.addProduct(token: "coins-p", FakeGoogleProduct(productId: "coins_100", orderId: "GPA.P", purchaseTime: Date().addingTimeInterval(-60),
                                                                quantity: 5))
            let coins = try await rig.buy(fixture.alice, "reader.coins.100", sku: "coins_100", token: "coins-p", order: "GPA.P")
            // Google refunds 2 of the 5 and says so by RTDN (refundType 2), without the quantity.
            fake.voidProduct(token: "coins-p", quantity: 2)
            let handler = GoogleNotificationHandler(verifier: rig.google, purchases: rig.purchases, catalogs: fixture.runtime.commerceCatalogs)
            let note: [String: Any] = ["version": "1.0", "packageName": Self.app, "eventTimeMillis": "\(Int64(Date().timeIntervalSince1970 * 1000))",
                                       "voidedPurchaseNotification": ["purchaseToken": "coins-p", "orderId": "GPA.P", "productType": 2, "refundType": 2]]
            let data = try JSONSerialization.data(withJSONObject: note).base64EncodedString()
            let body = try JSONSerialization.data(withJSONObject: ["message": ["data": data, "messageId": "p-1"], "subscription": "s"])
            let received = ReceivedStoreNotification(app: Self.app, store: "google_play", notificationId: "p-1", type: "x", signedDate: Date(),
                                                     payload: String(decoding: body, as: UTF8.self))
            let outcome = try await handler.handle(StoredStoreNotification(id: UUID(), received: received, status: .queued, summary: nil, attempts: 1,
                                                                           nextAttemptAt: Date(), lastError: nil, receivedAt: Date(), processedAt: nil))
            #expect(outcome == .processed("partial refund: its quantity is taken back by the voided-purchases listing"))
            #expect(try await rig.purchases.payment(coins)?.revokedAt == nil)
            #expect(try await rig.purchases.balances(account: fixture.alice.account, app: Self.app).map(\.balance) == [5])
            let read = await rig.poller(holder: "partial").run()
            #expect(read.partial == 1 && read.revoked == 0)
            #expect(try await rig.purchases.balances(account: fixture.alice.account, app: Self.app).map(\.balance) == [3])
            #expect(try await rig.purchases.payment(coins)?.revokedAt == nil)
        }
    }

    // MARK: Refunds

    /// olive, an operator, and sue, support.
    static func addStaff(_ runtime: SoukRuntime) async throws {
        let hash = try PasswordHashing.hash(OAuthTests.password)
        for (email, role) in [("olive@example.com", AccountRole.operator), ("sue@example.com", .support)] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            account.role = role
            try await account.save(on: runtime.database.db)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorRefundsAtGoogleAndAccessEndsWhenGoogleConfirms(_ backend: TestBackend) async throws {
        try await Self.with(backend) { rig in
            let fixture = rig.fixture, fake = rig.fake, client = fixture.client
            try await Self.addStaff(fixture.runtime)
            let bought = Date().addingTimeInterval(-3600)
            fake.addProduct(token: "book-r", FakeGoogleProduct(productId: "book_1", orderId: "GPA.R", purchaseTime: bought))
            fake.addSubscription(token: "sub-r", FakeGoogleSubscription(productId: "monthly", startTime: bought, expiryTime: Date() + 29 * 86_400,
                                                                        latestOrderId: "GPA.SR"))
            let book = try await rig.buy(fixture.alice, "reader.book.1", sku: "book_1", token: "book-r", order: "GPA.R")
            let subscription = try await rig.buy(fixture.alice, "reader.monthly", sku: "monthly", token: "sub-r", order: "GPA.SR")
            let alice = fixture.alice.account.uuidString.lowercased(), bob = fixture.bob.account.uuidString.lowercased()
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sue = try #require(try await WebAccountTests.webSignIn(client, email: "sue@example.com"))
            let uri = "/admin/people/\(alice)/purchases/\(book.uuidString.lowercased())/refund"
            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(alice)", session: olive).body)
            #expect(page.contains(uri) && page.contains("Refund at Google Play"))
            #expect(!String(buffer: try await AdminConsoleTests.get(client, "/admin/people/\(alice)", session: sue).body).contains(uri))
            // Support may not refund; another person's id does not reach the purchase.
            #expect(try await AdminConsoleTests.post(client, uri, session: sue).status == .forbidden)
            #expect(try await AdminConsoleTests.post(client, "/admin/people/\(bob)/purchases/\(book.uuidString.lowercased())/refund",
                                                     session: olive).status == .notFound)
            // A prorated refund is for subscriptions.
            #expect(try await AdminConsoleTests.post(client, uri, session: olive, ["prorated": "on"]).status == .badRequest)

            // Google down: nothing refunded, a clear 503.
            rig.faults.down(status: 503)
            let down = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(down.status == .serviceUnavailable && String(buffer: down.body).contains("nothing was refunded"))
            rig.faults.recover()
            #expect(fake.product(token: "book-r")?.purchaseState == 0)
            #expect(try await rig.purchases.payment(book)?.revokedAt == nil)
            #expect(try await fixture.isEntitled(fixture.alice, to: "book.1"))

            // Refunded: Google's read confirms it at once, so access ends.
            let refunded = try await AdminConsoleTests.post(client, uri, session: olive)
            #expect(refunded.status == .ok && String(buffer: refunded.body).contains("Google confirms it"))
            #expect(rig.faults.requests(matching: "/orders/GPA.R:refund").allSatisfy { $0.method == "POST" && $0.query == "revoke=true" })
            #expect(try await rig.purchases.payment(book)?.revocationReason == "refunded")
            #expect(try await !fixture.isEntitled(fixture.alice, to: "book.1"))
            #expect(try await AdminConsoleTests.post(client, uri, session: olive).status == .conflict)

            // A subscription, for the unused time only.
            let subscriptionURI = "/admin/people/\(alice)/purchases/\(subscription.uuidString.lowercased())/refund"
            let revoked = try await AdminConsoleTests.post(client, subscriptionURI, session: olive, ["prorated": "on"])
            #expect(revoked.status == .ok)
            #expect(fake.revocations == ["proratedRefund"])
            #expect(try await !fixture.isEntitled(fixture.alice, to: "premium"))

            let entries = try await AuditLog(database: fixture.runtime.database).list(action: "purchase.refund", limit: 10)
            #expect(entries.count == 2 && entries.allSatisfy { $0.actor == "olive@example.com" && $0.target == "account:\(alice)" })
            #expect(entries.contains { $0.after?.contains("proratedRefund") == true && $0.after?.contains("purchases.subscriptionsv2.revoke") == true })
            #expect(entries.contains { $0.after?.contains("orders.refund") == true && $0.after?.contains("revoked") == true })
            #expect(try await !AuditLog(database: fixture.runtime.database).list(actor: "sue@example.com", action: "console.refused").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRefundGoogleHasNotCarriedOutYetEndsAccessWhenTheVoidedListingShowsIt(_ backend: TestBackend) async throws {
        try await Self.with(backend) { rig in
            let fixture = rig.fixture, fake = rig.fake, client = fixture.client
            try await Self.addStaff(fixture.runtime)
            try await rig.afterTheServersFirstListing()
            fake.addProduct(token: "book-d", FakeGoogleProduct(productId: "book_1", orderId: "GPA.D", purchaseTime: Date().addingTimeInterval(-60)))
            let book = try await rig.buy(fixture.bob, "reader.book.1", sku: "book_1", token: "book-d", order: "GPA.D")
            fake.deferRefunds()

            // `souk purchases refund`'s operation: Google takes the request, but does not read it refunded yet.
            let refunds = fixture.runtime.storeRefunds(verifiers: StoreVerifiers([rig.google]))
            guard case .success(.requested(let requested, let method)) = try await refunds.refund(book, actor: .cli(user: "tester")) else {
                Issue.record("the refund must be requested"); return
            }
            #expect(method == "orders.refund" && requested.revokedAt == nil)
            #expect(try await fixture.isEntitled(fixture.bob, to: "book.1"))
            let entry = try #require(try await AuditLog(database: fixture.runtime.database).list(action: "purchase.refund", limit: 1).first)
            #expect(entry.actor == "cli:tester" && entry.after?.contains("requested") == true)

            // Asked again meanwhile: Google refuses, nothing changes (502 in the console).
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let again = try await AdminConsoleTests.post(client, "/admin/people/\(fixture.bob.account.uuidString.lowercased())/purchases/\(book.uuidString.lowercased())/refund",
                                                         session: olive)
            #expect(again.status == .badGateway && String(buffer: again.body).contains("orderNotRefundable"))
            #expect(try await fixture.isEntitled(fixture.bob, to: "book.1"))

            // Google carries it out; the voided listing confirms it and access ends.
            fake.settleRefunds()
            let read = await rig.poller(holder: "after-refund").run()
            #expect(read.revoked == 1)
            #expect(try await !fixture.isEntitled(fixture.bob, to: "book.1"))
        }
    }

    // MARK: One-time products v2

    @Test(arguments: TestBackend.available)
    func aOneTimePurchaseKeepsItsPurchaseOptionAndOfferAndV1StillServes(_ backend: TestBackend) async throws {
        try await Self.with(backend) { rig in
            let fixture = rig.fixture, fake = rig.fake
            fake.addProduct(token: "book-v2", FakeGoogleProduct(productId: "book_1", orderId: "GPA.V2", purchaseTime: Date().addingTimeInterval(-60),
                                                                purchaseOptionId: "buy", offerId: "launch-discount"))
            let v2 = try await rig.buy(fixture.alice, "reader.book.1", sku: "book_1", token: "book-v2", order: "GPA.V2")
            let offer = try #require(try await rig.purchases.googleOffer(v2))
            #expect(offer.purchaseOptionId == "buy" && offer.offerId == "launch-discount")
            #expect(try await fixture.isEntitled(fixture.alice, to: "book.1"))

            fake.disableProductsV2()
            fake.addProduct(token: "book-v1", FakeGoogleProduct(productId: "book_1", orderId: "GPA.V1", purchaseTime: Date().addingTimeInterval(-60),
                                                                purchaseOptionId: "buy"))
            let v1 = try await rig.buy(fixture.bob, "reader.book.1", sku: "book_1", token: "book-v1", order: "GPA.V1")
            let none = try #require(try await rig.purchases.googleOffer(v1))
            #expect(none.purchaseOptionId == nil && none.offerId == nil)
            #expect(try await fixture.isEntitled(fixture.bob, to: "book.1"))
        }
    }
}
