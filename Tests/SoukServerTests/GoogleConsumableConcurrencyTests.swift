import Foundation
import Logging
import SoukApp
import SoukCore
import SoukIntegrations
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// Google Play consumables reported many at once (each twice, as Play Billing hands an unconsumed
/// purchase to the app again) while store-action workers consume them at Google (`FakeGooglePlay`),
/// on both databases: every valid purchase is answered 201, credited once and consumed once.
@Suite struct GoogleConsumableConcurrencyTests {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app
    static let sku = "coins_100"

    /// The reader catalog with a Google SKU for its coins.
    static var catalog: CommerceCatalog {
        var catalog = CommerceCatalogSamples.reader
        if let index = catalog.products.firstIndex(where: { $0.id == "reader.coins.100" }) {
            catalog.products[index].skus[.googlePlay] = sku
        }
        return catalog
    }

    /// What the concurrent tasks share: when to stop, and the answers the intakes got.
    final class Run: Sendable {
        private let state = Mutex((stopped: false, answers: [UInt]()))
        var stopped: Bool { state.withLock { $0.stopped } }
        var answers: [UInt] { state.withLock { $0.answers } }
        func stop() { state.withLock { $0.stopped = true } }
        func answered(_ status: UInt) { state.withLock { $0.answers.append(status) } }
    }

    static func event(_ fixture: Fixture, token: String, order: String) -> [String: Any] {
        var event = fixture.event("reader.coins.100", fixture.transaction("reader.coins.100"))
        var data = event["data"] as! [String: Any]
        data["store"] = "google_play"
        data["platform"] = "android"
        data["transaction"] = ["storeProductId": sku, "transactionId": order, "receipt": token]
        event["data"] = data
        return event
    }

    @Test(arguments: TestBackend.available)
    func consumablesReportedAtOnceWhileTheWorkersConsumeThemAreAllGranted(backend: TestBackend) async throws {
        let fake = try FakeGooglePlay(packageName: Self.app)
        let folder = NSTemporaryDirectory() + "souk-google-\(UUID().uuidString)"
        let keyPath = try fake.writeServiceAccount(into: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await FakeStoreServer.run(faults: StoreFaults(), routes: fake.routes) { base in
            var endpoints = StoreEndpoints()
            endpoints.googlePlayBaseURL = base
            endpoints.googleOAuthTokenURL = base + "/token"
            endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 3, requestTimeout: .seconds(60))
            let retry = endpoints.retry
            let settings = CommerceStoreSettings(googlePlay: GooglePlaySettings(packageName: Self.app, serviceAccount: .path(keyPath)))
            let google = GooglePlayStoreVerifier(settings: { _ in settings }, endpoints: endpoints)
            try await Fixture.with(backend, catalog: Self.catalog,
                                   verifiers: .init(make: { apple in [apple, google] })) { fixture in
                let purchases = fixture.runtime.purchases
                // Workers beside the server's own, polling without pause, so consumptions overlap the intakes.
                let worker = StoreActionWorker(purchases: purchases, performers: [google], retry: retry,
                                               storeStatus: StoreStatusStore(database: fixture.runtime.database),
                                               interval: .milliseconds(5), logger: testLogger())
                let run = Run()
                let rounds = 6, perRound = 8
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            while !run.stopped {
                                await worker.processDue()
                                try await Task.sleep(for: .milliseconds(2))
                            }
                        }
                    }
                    group.addTask {
                        defer { run.stop() }
                        for round in 0..<rounds {
                            try await withThrowingTaskGroup(of: UInt.self) { posts in
                                for index in 0..<perRound {
                                    let token = "token-\(round)-\(index)-\(UUID().uuidString)"
                                    let order = "GPA.\(round)-\(index)"
                                    fake.addProduct(token: token, FakeGoogleProduct(productId: Self.sku, orderId: order,
                                                                                    purchaseTime: Date().addingTimeInterval(-60)))
                                    let person = index.isMultiple(of: 2) ? fixture.alice : fixture.bob
                                    for _ in 0..<2 {
                                        posts.addTask {
                                            UInt(try await fixture.post(Self.event(fixture, token: token, order: order), as: person).status.code)
                                        }
                                    }
                                }
                                for try await status in posts { run.answered(status) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let answered = run.answers
                #expect(answered.count == 2 * rounds * perRound)
                #expect(answered.allSatisfy { $0 == 201 }, "answers: \(Dictionary(grouping: answered, by: { $0 }).mapValues(\.count))")

                // Every purchase recorded once, credited once, and consumed at Google (recorded as such).
                let all = rounds * perRound
                for _ in 0..<400 {
                    let recorded = try await purchases.list(app: Self.app)
                    if recorded.count == all, recorded.allSatisfy({ $0.storeConsumed == true }) { break }
                    await worker.processDue()
                    try await Task.sleep(for: .milliseconds(50))
                }
                let recorded = try await purchases.list(app: Self.app)
                #expect(recorded.count == all && recorded.allSatisfy { $0.status == .granted && $0.storeConsumed == true })
                for (person, count) in [(fixture.alice, all / 2), (fixture.bob, all / 2)] {
                    #expect(try await purchases.balances(account: person.account, app: Self.app).map(\.balance) == [count])
                }
            }
        }
    }
}
