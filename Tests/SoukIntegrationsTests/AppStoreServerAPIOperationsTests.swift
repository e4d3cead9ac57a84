import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// The acting App Store Server API calls (Send Consumption Information, Extend a Subscription
/// Renewal Date and its mass form, Look Up Order ID) against the fake, which checks bodies as
/// Apple's documentation says.
@Suite struct AppStoreServerAPIOperationsTests {
    typealias Base = AppStoreServerAPIClientTests
    static let app = Base.app
    static let day: TimeInterval = 86_400

    static func coins(_ id: String) -> AppleTestTransaction {
        AppleTestTransaction(bundleId: app, productId: "com.example.reader.coins", type: .consumable, transactionId: id,
                             purchaseDate: Date() - day, quantity: 5)
    }

    @Test func consumptionInformationGoesToV2WithApplesFields() async throws {
        let fake = FakeAppStoreServerAPI(chain: try AppleTestChain.make(), bundleId: Self.app)
        fake.add(Self.coins("2000000000000201"))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Base.endpoints(production, sandbox))
            let body = AppleConsumptionRequest(customerConsented: true, sampleContentProvided: false, deliveryStatus: .delivered,
                                               consumptionPercentage: 40_000, refundPreference: .grantProrated)
            #expect(try await client.sendConsumptionInformation("2000000000000201", body, environment: .production,
                                                               credentials: Base.credentials(fake)) == .found(.v2))
            let sent = try #require(fake.consumptionAnswers.first)
            #expect(sent.version == "v2" && sent.transactionId == "2000000000000201")
            #expect(sent.fields == ["customerConsented": "true", "sampleContentProvided": "false", "deliveryStatus": "DELIVERED",
                                    "consumptionPercentage": "40000", "refundPreference": "GRANT_PRORATED"])

            // Apple refuses what its documentation forbids: no consent, a share of an undelivered purchase.
            var refused = body
            refused.customerConsented = false
            #expect(try await client.sendConsumptionInformation("2000000000000201", refused, environment: .production,
                                                               credentials: Base.credentials(fake))
                == .invalid(errorCode: 4_000_035, message: "Invalid customer consented."))
            refused = body
            refused.deliveryStatus = .undeliveredOther
            if case .invalid = try await client.sendConsumptionInformation("2000000000000201", refused, environment: .production,
                                                                           credentials: Base.credentials(fake)) {} else {
                Issue.record("a share of an undelivered purchase must be refused")
            }
            #expect(try await client.sendConsumptionInformation("2000000000000999", body, environment: .production,
                                                               credentials: Base.credentials(fake)) == .notFound)
        }
    }

    @Test func consumptionInformationFallsBackToV1WhereV2IsNotServed() async throws {
        let fake = FakeAppStoreServerAPI(chain: try AppleTestChain.make(), bundleId: Self.app)
        fake.add(Self.coins("2000000000000202"))
        fake.serveV2Consumption(false)
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Base.endpoints(production, sandbox))
            let body = AppleConsumptionRequest(customerConsented: true, sampleContentProvided: true, deliveryStatus: .delivered,
                                               consumptionPercentage: 100_000, refundPreference: .decline)
            #expect(try await client.sendConsumptionInformation("2000000000000202", body, environment: .production,
                                                               credentials: Base.credentials(fake)) == .found(.v1))
            let sent = try #require(fake.consumptionAnswers.first)
            #expect(sent.version == "v1")
            #expect(sent.fields["consumptionStatus"] == "3" && sent.fields["deliveryStatus"] == "0" && sent.fields["refundPreference"] == "2")
            #expect(sent.fields["customerConsented"] == "true" && sent.fields["sampleContentProvided"] == "true")
        }
    }

    @Test func anOutageIsNoVerdict() async throws {
        let fake = FakeAppStoreServerAPI(chain: try AppleTestChain.make(), bundleId: Self.app)
        fake.add(Self.coins("2000000000000203"))
        let faults = StoreFaults()
        faults.down()
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Base.endpoints(production, sandbox))
            let body = AppleConsumptionRequest(customerConsented: true, sampleContentProvided: false, deliveryStatus: .delivered,
                                               consumptionPercentage: nil, refundPreference: nil)
            await #expect(throws: StoreFault.self) {
                _ = try await client.sendConsumptionInformation("2000000000000203", body, environment: .production, credentials: Base.credentials(fake))
            }
            await #expect(throws: StoreFault.self) {
                _ = try await client.lookUpOrder("MK5TTTVWJH", environment: .production, credentials: Base.credentials(fake))
            }
        }
        #expect(fake.consumptionAnswers.isEmpty)
    }

    @Test func extendingOneSubscriptionMovesItsRenewalDate() async throws {
        let fake = FakeAppStoreServerAPI(chain: try AppleTestChain.make(), bundleId: Self.app)
        let running = Base.subscription("2000000000000301", purchased: Date() - Self.day)
        fake.add(running)
        fake.add(Base.subscription("2000000000000302", purchased: Date() - 40 * Self.day))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Base.endpoints(production, sandbox))
            let request = AppleExtendRenewalDateRequest(extendByDays: 7, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "req-1")
            let answer = try await client.extendRenewalDate("2000000000000301", request, environment: .production, credentials: Base.credentials(fake))
            let response = try #require(answer.value)
            #expect(response.success == true && response.originalTransactionId == "2000000000000301")
            let expected = try #require(running.expiresDate).addingTimeInterval(7 * Self.day)
            #expect(abs(try #require(response.effective).timeIntervalSince(expected)) < 0.01)

            // Apple's verdicts: an expired subscription is ineligible (403), 91 days is too many (400).
            #expect(try await client.extendRenewalDate("2000000000000302", AppleExtendRenewalDateRequest(
                extendByDays: 7, extendReasonCode: .other, requestIdentifier: "req-2"), environment: .production, credentials: Base.credentials(fake))
                == .invalid(errorCode: 4_030_004, message: "Subscription extension ineligible."))
            #expect(try await client.extendRenewalDate("2000000000000301", AppleExtendRenewalDateRequest(
                extendByDays: 91, extendReasonCode: .other, requestIdentifier: "req-3"), environment: .production, credentials: Base.credentials(fake))
                == .invalid(errorCode: 4_000_009, message: "Invalid extend by days value."))
        }
    }

    @Test func aMassExtensionIsFollowedUntilAppleCompletesIt() async throws {
        let fake = FakeAppStoreServerAPI(chain: try AppleTestChain.make(), bundleId: Self.app)
        fake.add(Base.subscription("2000000000000401", purchased: Date() - Self.day))
        fake.add(Base.subscription("2000000000000402", purchased: Date() - 2 * Self.day))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Base.endpoints(production, sandbox))
            let request = AppleMassExtendRenewalDateRequest(requestIdentifier: "mass-1", extendByDays: 3, extendReasonCode: .customerSatisfaction,
                                                            productId: Base.monthly, storefrontCountryCodes: ["USA"])
            #expect(try await client.massExtendRenewalDate(request, environment: .production, credentials: Base.credentials(fake)) == .found("mass-1"))
            #expect(fake.massExtensions.first?.storefrontCountryCodes == ["USA"])
            let pending = try await client.massExtensionStatus(productId: Base.monthly, requestIdentifier: "mass-1", environment: .production,
                                                               credentials: Base.credentials(fake))
            #expect(pending.value?.complete == false)
            fake.completeMassExtensions()
            let done = try #require(try await client.massExtensionStatus(productId: Base.monthly, requestIdentifier: "mass-1",
                                                                         environment: .production, credentials: Base.credentials(fake)).value)
            #expect(done.complete == true && done.succeededCount == 2 && done.failedCount == 0 && done.completeDate != nil)
            #expect(try await client.massExtensionStatus(productId: Base.monthly, requestIdentifier: "nope", environment: .production,
                                                         credentials: Base.credentials(fake)) == .notFound)
        }
    }

    @Test func anOrderIdLeadsToItsSignedTransactions() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.coins("2000000000000501"))
        fake.addOrder("MK5TTTVWJH", transactionIds: ["2000000000000501"])
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Base.endpoints(production, sandbox))
            let found = try #require(try await client.lookUpOrder("MK5TTTVWJH", environment: .production, credentials: Base.credentials(fake)).value)
            #expect(found.isValid && found.signedTransactions.count == 1)
            let transaction = try #require(await verifier.verifyTransaction(found.signedTransactions[0], bundleId: Self.app,
                                                                            environments: [.production]).payload)
            #expect(transaction.transactionId == "2000000000000501")
            let unknown = try #require(try await client.lookUpOrder("ZZZZZZZZZZ", environment: .production, credentials: Base.credentials(fake)).value)
            #expect(!unknown.isValid && unknown.signedTransactions.isEmpty && unknown.status == 1)
        }
    }
}
