import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct SigningKeyTests {
    static let restoreOne = #"{"apps": [{"appleItemId": "1", "appleVersionId": "0"}], "platform": "iOS", "osVersion": "17.4"}"#

    static func token(_ client: any TestClientProtocol) async throws -> String {
        let body = try AppDataTests.json(try await AppDataTests.post(client, "restore", restoreOne))
        return try #require((body["restores"] as? [[String: Any]])?.first?["installVerificationToken"] as? String)
    }

    static func jwks(_ client: any TestClientProtocol) async throws -> (json: String, kids: [String]) {
        let json = String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let kids = try #require(object["keys"] as? [[String: Any]]).compactMap { $0["kid"] as? String }
        return (json, kids)
    }

    static func header(_ token: String) throws -> [String: Any] {
        let part = try #require(token.split(separator: ".").first)
        let data = try #require(Base64URL.decode(String(part)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(arguments: TestBackend.available)
    func rotationSignsWithTheNewKeyAndKeepsTheOldOnePublished(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { client, runtime in
            let before = try await Self.jwks(client)
            #expect(before.kids.count == 1)
            let oldToken = try await Self.token(client)
            #expect(try Self.header(oldToken)["kid"] as? String == before.kids[0])

            let record = try await runtime.installVerificationKeys.rotate(owner: 0, kid: "NEWKEY0001")
            #expect(record.kid == "NEWKEY0001")
            let marketplace = try await runtime.catalog.marketplace(defaultKeyId: "")
            #expect(marketplace.installVerificationKeyId == "NEWKEY0001")

            let after = try await Self.jwks(client)
            #expect(Set(after.kids) == Set(before.kids + ["NEWKEY0001"]))
            let newToken = try await Self.token(client)
            #expect(try Self.header(newToken)["kid"] as? String == "NEWKEY0001")
            // Both tokens verify against the published set; the old one with the old key.
            let keys = try await JWTKeyCollection().add(jwksJSON: after.json)
            _ = try await keys.verify(oldToken, as: InstallVerificationClaims.self)
            _ = try await keys.verify(newToken, as: InstallVerificationClaims.self)
            // The new private key file is owner-only.
            let attributes = try FileManager.default.attributesOfItem(atPath: runtime.config.keysDir + "/" + record.keyFile)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            // Once the grace period is over the old key leaves the JWKS.
            let later = try await runtime.installVerificationKeys.jwks(now: Date().addingTimeInterval(InstallVerificationKeyring.publicationGrace + 60))
            #expect(later.map { $0["kid"] } == ["NEWKEY0001"])
        }
    }

    @Test(arguments: TestBackend.available)
    func webDistributionSignsAnAppsTokensWithItsOwnKeyAndIssuer(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { client, runtime in
            let own = try await runtime.installVerificationKeys.rotate(owner: 1, kid: nil)
            let token = try await Self.token(client)
            #expect(try Self.header(token)["kid"] as? String == own.kid)
            let keys = try await JWTKeyCollection().add(jwksJSON: try await Self.jwks(client).json)
            let claims = try await keys.verify(token, as: InstallVerificationClaims.self)
            #expect(claims.iss == "1")
            #expect(claims.bid == "org.example.one")

            // Other apps keep the marketplace's key and issuer.
            let other = try AppDataTests.json(try await AppDataTests.post(client, "updates",
                #"{"apps": [{"appleItemId": "4", "appleVersionId": "0"}], "platform": "iOS", "osVersion": "18.0"}"#))
            let otherToken = try #require((other["updates"] as? [[String: Any]])?.first?["installVerificationToken"] as? String)
            #expect(try await keys.verify(otherToken, as: InstallVerificationClaims.self).iss == "6446000000")

            try await runtime.installVerificationKeys.store.retire(owner: 1)
            let back = try await Self.token(client)
            #expect(try Self.header(back)["kid"] as? String != own.kid)
            #expect(try await keys.verify(back, as: InstallVerificationClaims.self).iss == "6446000000")
            await #expect(throws: CatalogError.self) { try await runtime.installVerificationKeys.store.retire(owner: 0) }
        }
    }

    @Test func keyIdsAreValidatedAndUnique() async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(.sqlite, prepare: { runtime, _ in box.value = runtime }) { _ in
            let keyring = box.value!.installVerificationKeys
            await #expect(throws: CatalogError.self) { try await keyring.rotate(owner: 0, kid: "has space") }
            _ = try await keyring.rotate(owner: 0, kid: "ONE")
            await #expect(throws: CatalogError.self) { try await keyring.rotate(owner: 0, kid: "ONE") }
            try await keyring.store.rename(owner: 0, to: "TWO")
            #expect(try await keyring.activeKeys()[0]?.kid == "TWO")
        }
    }
}
