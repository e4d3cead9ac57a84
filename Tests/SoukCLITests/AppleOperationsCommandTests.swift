import Foundation
@testable import SoukApp
@testable import SoukCLI
import SoukCore
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk stores notifications` shows Apple's refund requests with Souk's answer and Apple's reply,
/// on both databases; `souk subscriptions extend` and `souk purchases find` refuse bad input before
/// anything is asked, and `souk subscriptions extensions` lists what was asked.
@Suite struct AppleOperationsCommandTests {
    static let app = "org.example.reader"

    @Test(arguments: TestBackend.available)
    func refundRequestsShowTheirAnswerAndApplesReply(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let (rows, requests) = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let store = StoreNotificationStore(database: runtime.database)
                _ = try await store.receive(ReceivedStoreNotification(
                    app: Self.app, store: "apple_store", notificationId: "uuid-refund", type: "CONSUMPTION_REQUEST", environment: "Production",
                    signedDate: Date(timeIntervalSince1970: 1_800_000_000), payload: "{\"signedPayload\":\"SECRET-JWS\"}"))
                let claimed = try #require(try await store.claimDue())
                try await store.complete(claimed.id, status: .processed, summary: "CONSUMPTION_REQUEST → purchase; refund request recorded")
                let consumption = AppleConsumptionStore(database: runtime.database)
                let requestedAt = Date(timeIntervalSince1970: 1_800_000_000)
                #expect(try await consumption.record(AppleConsumptionRequestRecord(
                    app: Self.app, notificationId: "uuid-refund", environment: .production, transactionId: "2000000000000001",
                    originalTransactionId: "2000000000000001", productId: "com.example.reader.coins100", reason: "UNINTENDED_PURCHASE",
                    requestedAt: requestedAt, deadline: requestedAt.addingTimeInterval(AppleConsumptionStore.window))))
                // A redelivered notification records nothing new.
                #expect(!(try await consumption.record(AppleConsumptionRequestRecord(
                    app: Self.app, notificationId: "uuid-refund", environment: .production, transactionId: "2000000000000001",
                    originalTransactionId: nil, productId: nil, reason: nil, requestedAt: requestedAt, deadline: requestedAt))))
                let due = try #require(try await consumption.claimDue(limit: 5).first)
                #expect(due.attempts == 1 && due.status == .pending)
                #expect(try await consumption.claimDue(limit: 5).isEmpty)
                try await consumption.settle(due.id, status: .answered, answer: #"{"deliveryStatus":"DELIVERED"}"#, endpoint: "v2",
                                             reply: "202 Accepted", detail: nil)
                return (try await store.notifications(app: Self.app), try await consumption.requests(app: Self.app))
            }
            #expect(requests.first?.status == .answered && requests.first?.answeredAt != nil)
            let shown = StoresNotificationsCommand.render(rows, refunds: Dictionary(uniqueKeysWithValues: requests.map { ($0.notificationId, $0) }))
            #expect(shown.contains("CONSUMPTION_REQUEST") && shown.contains(#"answer: answered; sent v2 {"deliveryStatus":"DELIVERED"}; Apple: 202 Accepted"#))
            #expect(!shown.contains("SECRET-JWS"))
            let list = try StoresNotificationsCommand.parse(["--app", Self.app] + settings)
            try await list.run()
            let extensions = try SubscriptionsExtensionsCommand.parse(["--app", Self.app] + settings)
            try await extensions.run()
        }
    }

    @Test func extendAndFindRefuseBadInput() throws {
        let base = ["--app", Self.app, "--days", "7", "--reason", "1"]
        #expect(throws: (any Error).self) { try SubscriptionsExtendCommand.parse(base) }
        #expect(throws: (any Error).self) { try SubscriptionsExtendCommand.parse(base + ["--account", "a@example.com", "--all-active", "--product", "p"]) }
        #expect(throws: (any Error).self) { try SubscriptionsExtendCommand.parse(base + ["--all-active"]) }
        #expect(throws: (any Error).self) { try SubscriptionsExtendCommand.parse(["--app", Self.app, "--days", "91", "--reason", "1", "--account", "a@example.com"]) }
        #expect(throws: (any Error).self) { try SubscriptionsExtendCommand.parse(["--app", Self.app, "--days", "7", "--reason", "4", "--account", "a@example.com"]) }
        #expect(throws: (any Error).self) { try SubscriptionsExtendCommand.parse(base + ["--all-active", "--product", "p", "--storefront", "us"]) }
        _ = try SubscriptionsExtendCommand.parse(base + ["--all-active", "--product", "reader.monthly", "--storefront", "USA"])
        _ = try SubscriptionsExtendCommand.parse(base + ["--account", "a@example.com"])
        _ = try PurchasesFindCommand.parse(["--app", Self.app, "--order-id", "MK5TTTVWJH"])

        let none = AppleOperations.OrderFinding(orderId: "ZZZ", valid: false, transactions: [], unverified: 0)
        #expect(PurchasesFindCommand.render(none, emails: [:]) == "Apple knows no order ZZZ.")
    }
}
