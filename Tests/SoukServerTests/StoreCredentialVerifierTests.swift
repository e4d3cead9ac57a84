import Foundation
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// A sealed store credential at work: Roku's verifier (against the Roku fake) uses the sealed
/// partner key in preference to the catalog's file, a replacement is used by the next purchase
/// without a restart, and a sealed key that cannot be opened gives no verdict (the purchase
/// waits, as in a store outage); on both databases.
@Suite struct StoreCredentialVerifierTests {
    typealias Push = StorePushFixture

    @Test(arguments: TestBackend.available)
    func theVerifierUsesTheSealedKeyAndItsReplacementAtOnce(backend: TestBackend) async throws {
        try await Push.with(backend) { push in
            let runtime = push.fixture.runtime
            let operations = StoreCredentialOperations(runtime: runtime)
            let actor = SoukActor.cli(user: "tester")
            push.roku.add(transactionId: "T1", fields: Push.rokuSubscription())
            push.roku.add(transactionId: "T2", fields: Push.rokuSubscription())
            push.roku.add(transactionId: "T3", fields: Push.rokuSubscription())

            // A sealed key Roku does not know stands in for the catalog's (good) key file: no verdict.
            try await operations.set(actor: actor, app: Push.app, kind: .rokuPartnerAPIKey, upload: Array("NOT-THE-PARTNER-KEY-0000".utf8))
            let refused = try await push.buy(store: "roku", platform: "roku", sku: "reader-monthly", transactionId: "T1")
            #expect(refused.status == .accepted)
            #expect(!(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly")))

            // Rotated to the right key: the next purchase is verified, no restart.
            try await operations.set(actor: actor, app: Push.app, kind: .rokuPartnerAPIKey, upload: Array(Push.rokuKey.utf8))
            #expect(try await push.buy(store: "roku", platform: "roku", sku: "reader-monthly", transactionId: "T2").status == .created)
            #expect(try await push.fixture.isEntitled(push.fixture.alice, to: "reader.monthly"))
            let keys = push.stores.requests(matching: "/validate-transaction/").map(\.path)
            #expect(keys.contains { $0.contains("NOT-THE-PARTNER-KEY-0000") } && keys.last?.contains(Push.rokuKey) == true)

            // The sealing key lost: a clear fault for the operator, never a refusal and never the file's key.
            try FileManager.default.removeItem(atPath: runtime.config.keysDir + "/" + CredentialSealer.fileName)
            let before = push.stores.requests(matching: "/validate-transaction/").count
            let waiting = try await push.buy(store: "roku", platform: "roku", sku: "reader-monthly", transactionId: "T3")
            #expect(waiting.status == .accepted)
            #expect(push.stores.requests(matching: "/validate-transaction/").count == before)
            let status = try await StoreStatusStore(database: runtime.database).list(app: Push.app)
            #expect(status.contains { $0.store == .roku && ($0.lastError ?? "").contains("sealed") })
        }
    }
}
