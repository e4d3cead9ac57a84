import Crypto
import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `AppStoreServerAPIClient` against fakes of Apple's two hosts that check the bearer JWT as
/// Apple does and answer signed data, pages, 404 and 400 in Apple's shapes.
@Suite struct AppStoreServerAPIClientTests {
    static let app = "com.example.reader"
    static let monthly = "com.example.reader.monthly"
    static let day: TimeInterval = 86_400

    static func endpoints(_ production: String, _ sandbox: String) -> StoreEndpoints {
        var endpoints = StoreEndpoints()
        endpoints.appStoreServerAPIBaseURL = production
        endpoints.appStoreServerAPISandboxBaseURL = sandbox
        endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 3, requestTimeout: .seconds(60))
        return endpoints
    }

    static func credentials(_ fake: FakeAppStoreServerAPI, pem: String? = nil) -> AppStoreServerAPIClient.Credentials {
        .init(keyId: fake.keyId, issuerId: fake.issuerId, privateKeyPEM: pem ?? fake.privateKeyPEM, bundleId: fake.bundleId)
    }

    static func subscription(_ id: String, original: String? = nil, purchased: Date, environment: String = "Production") -> AppleTestTransaction {
        AppleTestTransaction(bundleId: app, productId: monthly, type: .autoRenewable, transactionId: id, originalTransactionId: original,
                             environment: environment, purchaseDate: purchased, expiresDate: purchased + 30 * day)
    }

    @Test func tokenCarriesTheClaimsAppleRequires() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let now = Date(timeIntervalSince1970: 1_760_000_000)
        let client = AppStoreServerAPIClient(endpoints: StoreEndpoints(), now: { now })
        let token = try client.token(Self.credentials(fake))
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: #require(Base64URL.decode(parts[0]))) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: #require(Base64URL.decode(parts[1]))) as? [String: Any]
        #expect(header?["alg"] as? String == "ES256")
        #expect(header?["kid"] as? String == fake.keyId)
        #expect(header?["typ"] as? String == "JWT")
        #expect(claims?["iss"] as? String == fake.issuerId)
        #expect(claims?["aud"] as? String == "appstoreconnect-v1")
        #expect(claims?["bid"] as? String == Self.app)
        #expect((claims?["iat"] as? NSNumber)?.int64Value == 1_760_000_000)
        #expect((claims?["exp"] as? NSNumber)?.int64Value == 1_760_000_300)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: #require(Base64URL.decode(parts[2])))
        #expect(fake.privateKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))

        #expect(throws: StoreFault(.credentials, "The In-App Purchase key \(fake.keyId) is not a P-256 private key in PEM (.p8).")) {
            try client.token(Self.credentials(fake, pem: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----"))
        }
    }

    @Test func transactionInfoAnswersSignedDataNotFoundAndInvalid() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.subscription("2000000000000101", purchased: Date() - Self.day))
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox))
            let answer = try await client.transactionInfo("2000000000000101", environment: .production, credentials: Self.credentials(fake))
            let jws = try #require(answer.value)
            let transaction = try #require(await verifier.verifyTransaction(jws, bundleId: Self.app, environments: [.production]).payload)
            #expect(transaction.transactionId == "2000000000000101")
            #expect(transaction.productId == Self.monthly)

            #expect(try await client.transactionInfo("2000000000000999", environment: .production, credentials: Self.credentials(fake)) == .notFound)
            #expect(try await client.transactionInfo("not-a-number", environment: .production, credentials: Self.credentials(fake))
                == .invalid(errorCode: 4_000_006, message: "Invalid transaction id."))
            // The sandbox host knows nothing of production's transactions.
            #expect(try await client.transactionInfo("2000000000000101", environment: .sandbox, credentials: Self.credentials(fake)) == .notFound)
        }
        let token = try #require(fake.acceptedTokens.first)
        #expect(token.alg == "ES256" && token.kid == fake.keyId && token.typ == "JWT")
        #expect(token.iss == fake.issuerId && token.aud == "appstoreconnect-v1" && token.bid == Self.app)
        #expect(try #require(token.exp) - #require(token.iat) == 300)
    }

    @Test func subscriptionStatusesByAnyTransactionId() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let start = Date() - 40 * Self.day
        fake.add(Self.subscription("2000000000000201", purchased: start))
        fake.add(Self.subscription("2000000000000202", original: "2000000000000201", purchased: start + 30 * Self.day))
        let grace = Date() + 3 * Self.day
        fake.setSubscription(originalTransactionId: "2000000000000201", status: 4,
                             renewal: AppleTestRenewalInfo(originalTransactionId: "2000000000000201", productId: Self.monthly,
                                                           autoRenewProductId: "com.example.reader.yearly", gracePeriodExpiresDate: grace))
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox))
            // Asked by the first (not the latest) transaction id: Apple answers for the whole subscription.
            let statuses = try #require(try await client.subscriptionStatuses("2000000000000201", environment: .production,
                                                                               credentials: Self.credentials(fake)).value)
            #expect(statuses.environment == "Production" && statuses.bundleId == Self.app)
            let last = try #require(statuses.lastTransaction(originalTransactionId: "2000000000000201"))
            #expect(last.status == 4)
            let signedLatest = try #require(last.signedTransactionInfo)
            let latest = try #require(await verifier.verifyTransaction(signedLatest, bundleId: Self.app, environments: [.production]).payload)
            #expect(latest.transactionId == "2000000000000202")
            let signedRenewal = try #require(last.signedRenewalInfo)
            let renewal = try #require(await verifier.verifyRenewalInfo(signedRenewal, environments: [.production]).payload)
            #expect(renewal.autoRenewProductId == "com.example.reader.yearly")
            #expect(renewal.gracePeriodExpiresDate == AppleTestTransaction(bundleId: "", productId: "", expiresDate: grace).expiresDate)
            #expect(try await client.subscriptionStatuses("2000000000000299", environment: .production, credentials: Self.credentials(fake)) == .notFound)
        }
    }

    @Test func historyIsPagedByRevisionWhileHasMore() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, environment: "Sandbox", bundleId: Self.app, pageSize: 20)
        let start = Date() - 100 * Self.day
        let ids = (0..<45).map { String(2_000_000_000_001_000 + $0) }
        for (index, id) in ids.enumerated() {
            fake.add(AppleTestTransaction(bundleId: Self.app, productId: "com.example.reader.coins", type: .consumable, transactionId: id,
                                          environment: "Sandbox", purchaseDate: start + Double(index) * 3600))
        }
        fake.add(AppleTestTransaction(bundleId: Self.app, productId: "other", transactionId: "2000000000009999", environment: "Sandbox"),
                 account: "someone-else")
        let faults = StoreFaults()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        try await FakeAppStoreServerAPI.run(production: nil, sandbox: fake, sandboxFaults: faults) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox))
            let first = try #require(try await client.history(ids[7], revision: nil, environment: .sandbox, credentials: Self.credentials(fake)).value)
            #expect(first.signedTransactions.count == 20 && first.hasMore && first.revision != nil)
            let second = try #require(try await client.history(ids[7], revision: first.revision, environment: .sandbox,
                                                               credentials: Self.credentials(fake)).value)
            #expect(second.signedTransactions.count == 20 && second.hasMore)
            #expect(try await client.history(ids[7], revision: "bogus", environment: .sandbox, credentials: Self.credentials(fake))
                == .invalid(errorCode: 4_000_005, message: "Invalid request revision."))

            let all = try await client.allHistory(ids[7], environment: .sandbox, credentials: Self.credentials(fake))
            var seen: [String] = []
            for jws in all {
                let payload = try #require(await verifier.verifyTransaction(jws, bundleId: Self.app, environments: [.sandbox]).payload)
                seen.append(try #require(payload.transactionId))
            }
            #expect(seen == ids)
            #expect(try await client.allHistory("2000000000000001", environment: .sandbox, credentials: Self.credentials(fake)).isEmpty)
        }
        let paged = faults.requests(matching: "/inApps/v2/history/").suffix(4)
        #expect(paged.map { $0.query.hasPrefix("revision=") } == [false, true, true, false])
    }

    @Test func refundLookupPagesThroughRevokedTransactions() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app, pageSize: 2)
        let start = Date() - 10 * Self.day
        for index in 0..<6 {
            fake.add(AppleTestTransaction(bundleId: Self.app, productId: "com.example.reader.book\(index)", transactionId: "200000000000030\(index)",
                                          purchaseDate: start + Double(index) * Self.day,
                                          revocationDate: index.isMultiple(of: 2) ? start + 8 * Self.day : nil,
                                          revocationReason: index.isMultiple(of: 2) ? 0 : nil))
        }
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox))
            let refunds = try await client.refundLookup("2000000000000301", environment: .production, credentials: Self.credentials(fake))
            var ids: [String] = []
            for jws in refunds {
                let payload = try #require(await verifier.verifyTransaction(jws, bundleId: Self.app, environments: [.production]).payload)
                #expect(payload.revocationDate != nil)
                ids.append(try #require(payload.transactionId))
            }
            #expect(ids == ["2000000000000300", "2000000000000302", "2000000000000304"])
            #expect(try await client.refundLookup("2000000000000999", environment: .production, credentials: Self.credentials(fake)).isEmpty)
        }
    }

    @Test func refusedKeyIsACredentialsFaultNotAnAnswer() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.subscription("2000000000000401", purchased: Date()))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox))
            let otherKey = P256.Signing.PrivateKey().pemRepresentation
            await #expect(throws: StoreFault(.credentials, "Apple refused the In-App Purchase key (401)")) {
                try await client.transactionInfo("2000000000000401", environment: .production, credentials: Self.credentials(fake, pem: otherKey))
            }
            var wrongApp = Self.credentials(fake)
            wrongApp.bundleId = "com.example.other"
            await #expect(throws: StoreFault(.credentials, "Apple refused the In-App Purchase key (401)")) {
                try await client.transactionInfo("2000000000000401", environment: .production, credentials: wrongApp)
            }
            // A token that expired (a clock far behind) is refused as well.
            let late = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox), now: { Date() - 3600 })
            await #expect(throws: StoreFault(.credentials, "Apple refused the In-App Purchase key (401)")) {
                try await late.transactionInfo("2000000000000401", environment: .production, credentials: Self.credentials(fake))
            }
        }
        #expect(fake.acceptedTokens.isEmpty)
    }

    @Test func unavailableAppleIsRetriedThenRecovers() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.subscription("2000000000000501", purchased: Date()))
        let faults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            let client = AppStoreServerAPIClient(endpoints: Self.endpoints(production, sandbox))
            faults.failNext(2, status: 503)
            let recovered = try await client.transactionInfo("2000000000000501", environment: .production, credentials: Self.credentials(fake))
            #expect(recovered.value != nil)
            #expect(faults.requests.count == 3)

            faults.down(status: 503)
            await #expect(throws: StoreFault(.unavailable, "App Store Server API transactions (Production): the store answered 503")) {
                try await client.transactionInfo("2000000000000501", environment: .production, credentials: Self.credentials(fake))
            }
            faults.failNext(0)
            faults.down(status: 429)
            await #expect(throws: StoreFault(.rateLimited, "App Store Server API history (Production): the store answered 429 (too many requests)")) {
                try await client.allHistory("2000000000000501", environment: .production, credentials: Self.credentials(fake))
                    .count
            }
            faults.recover()
            let history = try await client.allHistory("2000000000000501", environment: .production, credentials: Self.credentials(fake))
            #expect(history.count == 1)
        }
    }

    @Test func credentialsComeFromTheAppsSettings() throws {
        #expect(try AppStoreServerAPIClient.Credentials.configured(in: nil, app: Self.app) == nil)
        #expect(try AppStoreServerAPIClient.Credentials.configured(in: AppleStoreSettings(bundleId: Self.app, keyId: "K"), app: Self.app) == nil)
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let settings = AppleStoreSettings(keyId: "KEY1", issuerId: "ISSUER", privateKey: .env("SOUK_TEST_IAP_KEY"))
        let credentials = try #require(try AppStoreServerAPIClient.Credentials.configured(in: settings, app: Self.app,
                                                                                          environment: ["SOUK_TEST_IAP_KEY": pem]))
        #expect(credentials == .init(keyId: "KEY1", issuerId: "ISSUER", privateKeyPEM: pem, bundleId: Self.app))
        let missing = AppleStoreSettings(keyId: "KEY1", issuerId: "ISSUER", privateKey: .path("/nonexistent/souk/AuthKey.p8"))
        #expect(throws: StoreFault(.notConfigured, "The In-App Purchase key of app \(Self.app) cannot be read (file /nonexistent/souk/AuthKey.p8): cannot read the secret file /nonexistent/souk/AuthKey.p8")) {
            try AppStoreServerAPIClient.Credentials.configured(in: missing, app: Self.app)
        }
    }
}
