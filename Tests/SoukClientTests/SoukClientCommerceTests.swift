import Foundation
import SoukClient
import SoukTestSupport
import Testing

/// The façade against a real Souk over a real socket: what an app does from first launch to restore.
@Suite struct SoukClientCommerceTests {
    @Test(arguments: TestBackend.available)
    func productsListTheSKUsOnSaleWithoutAToken(_ backend: TestBackend) async throws {
        try await LiveSouk.with(backend) { souk in
            let anonymous = SoukClient(serverURL: souk.serverURL)
            let apple = try await anonymous.products(app: LiveSouk.app)
            #expect(apple == [
                "com.example.reader.monthly", "com.example.reader.yearly", "com.example.reader.coins100", "com.example.reader.pass30",
            ])
            let google = try await anonymous.products(app: LiveSouk.app, store: .googlePlay)
            #expect(google == ["monthly", "yearly", "book_1"])
            let unknown = await refusal { _ = try await anonymous.products(app: "org.example.nothing-here") }
            guard case .notFound(let problem) = unknown else { Issue.record("not 404: \(String(describing: unknown))"); return }
            #expect(problem?.status == 404)
        }
    }

    @Test(arguments: TestBackend.available)
    func aReportedPurchaseIsAnEntitlementAndRestoreReattachesIt(_ backend: TestBackend) async throws {
        try await LiveSouk.with(backend) { souk in
            let client = souk.client()
            #expect(try await client.entitlements(app: LiveSouk.app).isEmpty)

            let bought = souk.signedTransaction("reader.monthly")
            let outcome = try await client.postTransaction(app: LiveSouk.app, StorePurchase(
                productId: "reader.monthly", storeProductId: bought.sku, transactionId: bought.id, receipt: bought.jws,
                source: "reader://\(LiveSouk.app)/versions/1.0"))
            guard case .recorded(let paymentId) = outcome else { Issue.record("not recorded: \(outcome)"); return }
            #expect(UUID(uuidString: paymentId) != nil)
            // The payment-provider API's entitlements list every product the person may use: the pass opens the same
            // "premium" entitlement as the plan.
            let entitled = [Entitlement(productId: "reader.monthly"), Entitlement(productId: "reader.pass.30d")]
            #expect(try await client.entitlements(app: LiveSouk.app) == entitled)

            // The same event again (a retry after a lost answer) is recorded once, not refused.
            let again = StorePurchase(productId: "reader.monthly", storeProductId: bought.sku, transactionId: bought.id,
                                      receipt: bought.jws, eventId: "event-1", source: "reader://\(LiveSouk.app)/versions/1.0")
            _ = try await client.postTransaction(app: LiveSouk.app, again)
            _ = try await client.postTransaction(app: LiveSouk.app, again)
            #expect(try await client.entitlements(app: LiveSouk.app) == entitled)

            // Restore: one good transaction and one that is not Apple's is a partial success.
            let pass = souk.signedTransaction("reader.pass.30d")
            let other = try AppleTestChain.make().signTransaction(AppleTestTransaction(bundleId: LiveSouk.app, productId: pass.sku))
            let restored = try await client.restore(app: LiveSouk.app, signedTransactions: [pass.jws, other])
            #expect(restored.entitlements == [Entitlement(productId: "reader.monthly"), Entitlement(productId: "reader.pass.30d")])
            #expect(restored.refusedCount == 1)

            let refused = await refusal { _ = try await client.restore(app: LiveSouk.app, signedTransactions: [other]) }
            guard case .refused(let restoreProblem) = refused else { Issue.record("not refused: \(String(describing: refused))"); return }
            #expect(restoreProblem.type == "urn:souk:problem:restore-refused")
            #expect(restoreProblem.status == 422)
        }
    }

    @Test(arguments: TestBackend.available)
    func accountTokenIsStableAndABadTokenIsUnauthorized(_ backend: TestBackend) async throws {
        try await LiveSouk.with(backend) { souk in
            let first = try await souk.client().accountToken(app: LiveSouk.app)
            #expect(try await souk.client().accountToken(app: LiveSouk.app) == first)
            #expect(first.uuidString.lowercased() == first.uuidString.lowercased())

            let stranger = souk.client(accessToken: "sat_not-a-token")
            await #expect(throws: SoukClientError.unauthorized) { try await stranger.accountToken(app: LiveSouk.app) }
            await #expect(throws: SoukClientError.unauthorized) { try await stranger.entitlements(app: LiveSouk.app) }
            await #expect(throws: SoukClientError.unauthorized) { try await SoukClient(serverURL: souk.serverURL).entitlements(app: LiveSouk.app) }
        }
    }

    @Test(arguments: TestBackend.available)
    func refreshRotatesThePairAndRevokeSignsOut(_ backend: TestBackend) async throws {
        try await LiveSouk.with(backend) { souk in
            let anonymous = SoukClient(serverURL: souk.serverURL)
            let fresh = try await anonymous.refresh(refreshToken: souk.refreshToken, clientId: LiveSouk.clientId)
            #expect(fresh.accessToken.hasPrefix("sat_"))
            #expect(fresh.refreshToken?.hasPrefix("srt_") == true)
            #expect(fresh.refreshToken != souk.refreshToken)
            let client = souk.client(accessToken: fresh.accessToken)
            #expect(try await client.entitlements(app: LiveSouk.app).isEmpty)

            let unknown = await refusal { _ = try await anonymous.refresh(refreshToken: "srt_unknown", clientId: LiveSouk.clientId) }
            guard case .oauth(let error, _) = unknown else { Issue.record("not an OAuth error: \(String(describing: unknown))"); return }
            #expect(error == "invalid_grant")
            try await anonymous.revoke(token: fresh.accessToken)
            await #expect(throws: SoukClientError.unauthorized) { try await client.entitlements(app: LiveSouk.app) }
        }
    }

    /// The ``SoukClientError`` `body` throws (nil when it does not throw one).
    func refusal(_ body: () async throws -> Void) async -> SoukClientError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? SoukClientError
        }
    }
}
