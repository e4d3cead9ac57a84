import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing
import X509
import _CryptoExtras

/// A device's side of App License Delivery, as spec §3 describes it, with Souk's development
/// request format inside the envelope.
struct LicenseClient {
    let client: any TestClientProtocol
    let encryptionKey: _RSA.Encryption.PublicKey

    static func make(_ client: any TestClientProtocol) async throws -> LicenseClient {
        let der = try await client.execute(uri: "/marketplace-kit/certificates/encryption.cer", method: .get).body
        let certificate = try Certificate(derEncoded: Array(buffer: der))
        return LicenseClient(client: client, encryptionKey: try _RSA.Encryption.PublicKey(derRepresentation: Array(certificate.publicKey.subjectPublicKeyInfoBytes)))
    }

    func sealed(_ request: DevelopmentLicenseRequest) throws -> (request: String, key: String) {
        let sealed = try LicenseCrypto.seal(request: request.json, for: encryptionKey)
        return (Data(sealed.request).base64EncodedString(), Data(sealed.licenseKey).base64EncodedString())
    }

    func post(_ path: String, _ body: String, token: String? = nil) async throws -> TestResponse {
        try await Self.post(client, path, body, token: token)
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: String, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// Asks for licenses for `apps` (AppleItemID → AppleVersionID), naming the variant in `assets`
    /// (AppleItemID → assetPublicId) where given; the raw response.
    func request(device: String, apps: [(UInt64, UInt64)], token: String? = nil, versionSpelling: String = "appleVersionId",
                 assets: [UInt64: String] = [:]) async throws -> TestResponse {
        try await post("/marketplace-kit/v1/license", try body(device: device, apps: apps, versionSpelling: versionSpelling, assets: assets), token: token)
    }

    /// The JSON body of a license request (see `request`).
    func body(device: String, apps: [(UInt64, UInt64)], versionSpelling: String = "appleVersionId", assets: [UInt64: String] = [:]) throws -> String {
        let (request, key) = try sealed(DevelopmentLicenseRequest(requestId: 7, deviceId: device, action: .create, appleItemIds: apps.map(\.0)))
        let byId = apps.map { app in
            let asset = assets[app.0].map { #", "assetPublicId": "\#($0)""# } ?? ""
            return #""\#(app.0)": {"\#(versionSpelling)": "\#(app.1)"\#(asset)}"#
        }.joined(separator: ", ")
        return #"{"licenseRequest": "\#(request)", "licenseKey": "\#(key)", "appsById": {\#(byId)}}"#
    }

    func renew(device: String, licenseIds: [UInt64]) async throws -> TestResponse {
        let (request, key) = try sealed(DevelopmentLicenseRequest(requestId: 8, deviceId: device, action: .renew, licenseIds: licenseIds))
        return try await post("/marketplace-kit/v1/license/renew", #"{"renewalRequest": "\#(request)", "licenseKey": "\#(key)"}"#)
    }

    /// The licenses inside a development license, after checking its ES256 signature against the
    /// certificate it carries (which must be the one the configuration file names).
    func licenses(in response: TestResponse) async throws -> (payload: [String: Any], licenses: [[String: Any]], unlicensed: [String]) {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
        let encoded = try #require(body["license"] as? String)
        let blob = try #require(Data(base64Encoded: encoded))
        let text = try #require(String(data: blob, encoding: .utf8))
        let parts = text.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let headerData = try #require(Base64URL.decode(parts[0]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        let chain = try #require(header["x5c"] as? [String])
        let x5c = try #require(chain.first.flatMap { Data(base64Encoded: $0) })
        let served = try await client.execute(uri: "/marketplace-kit/certificates/signing.cer", method: .get).body
        #expect(Array(x5c) == Array(buffer: served))
        let certificate = try Certificate(derEncoded: Array(x5c))
        let key = try #require(P256.Signing.PublicKey(certificate.publicKey))
        let signatureData = try #require(Base64URL.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        #expect(key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        let payloadData = try #require(Base64URL.decode(parts[1]))
        let payload = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
        let unlicensed = (body["unlicensedApps"] as? [String]) ?? (body["ineligibleLicenses"] as? [String]) ?? []
        return (payload, (payload["licenses"] as? [[String: Any]]) ?? [], unlicensed)
    }
}

@Suite struct LicenseTests {
    static let device = "a1b2c3d4e5f60718"

    @Test(arguments: TestBackend.available)
    func publicAppsAreLicensedAndRefusalsListed(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: AppDataTests.prepare) { client in
            let licensing = try await LicenseClient.make(client)
            let response = try await licensing.request(device: Self.device, apps: [(1, 102), (3, 301), (99, 5), (1, 999)], versionSpelling: "appleVersionID")
            #expect(response.status == .ok)
            let (payload, licenses, unlicensed) = try await licensing.licenses(in: response)
            #expect(payload["deviceId"] as? String == Self.device)
            #expect(licenses.count == 1)
            #expect(licenses.first?["appleItemId"] as? String == "1")
            #expect(licenses.first?["appleVersionId"] as? String == "102")
            #expect(licenses.first?["duration"] as? Int == 720 * 3600)
            let idText = try #require(licenses.first?["licenseId"] as? String)
            let id = try #require(UInt64(idText))
            #expect(id > 0 && id < 1 << 63)
            #expect(Set(unlicensed) == ["3", "99"])  // taken down, unknown

            // A version that is not offered is refused too.
            let old = try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(4, 12345)]))
            #expect(old.unlicensed == ["4"])
        }
    }

    @Test(arguments: TestBackend.available)
    func accountAppsFollowTheBearerRulesAndCountDevices(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { client, runtime in
            let licensing = try await LicenseClient.make(client)
            #expect(try await licensing.request(device: Self.device, apps: [(2, 201)]).status == .unauthorized)
            #expect(try await licensing.request(device: Self.device, apps: [(2, 201)], token: "sat_forged").status == .forbidden)

            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
            let token = try await runtime.tokens.exchange(subjectToken: grant, clientId: "iphone").get().accessToken
            let first = try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201), (1, 102)], token: token))
            #expect(first.licenses.count == 2)
            #expect(first.licenses.first { $0["appleItemId"] as? String == "2" }?["duration"] as? Int == 48 * 3600)
            let store = LicenseStore(database: runtime.database)
            #expect(try await store.liveDevices(accountID: try account.requireID()) == [Self.device])

            // A limit of one device: a second device is refused until the first is released.
            account.deviceLimit = 1
            try await account.save(on: runtime.database.db)
            let second = try await licensing.licenses(in: try await licensing.request(device: "ffff0000", apps: [(2, 201)], token: token))
            #expect(second.unlicensed == ["2"])
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).unlicensed.isEmpty)
            try await store.revoke(.init(accountID: try account.requireID(), deviceId: Self.device), reason: "released")
            #expect(try await licensing.licenses(in: try await licensing.request(device: "ffff0000", apps: [(2, 201)], token: token)).unlicensed.isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func renewalsRefuseWhatLostItsRight(_ backend: TestBackend) async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in
            try await AppDataTests.prepare(runtime, paths)
            try await runtime.importSample(appleItemId: 5, appleVersionId: 501, bundleId: "org.example.five", in: paths.folder)
            box.value = runtime
        }) { client in
            let runtime = box.value!
            let licensing = try await LicenseClient.make(client)
            let issued = try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102), (4, 401), (5, 501)]))
            let ids = Dictionary(uniqueKeysWithValues: issued.licenses.map { ($0["appleItemId"] as! String, UInt64($0["licenseId"] as! String)!) })
            #expect(ids.count == 3)

            try await runtime.catalog.setAvailability(appleItemId: 4, to: .takenDown)
            try await LicenseStore(database: runtime.database).revoke(.init(appleItemId: 5), reason: "refunded")
            let renewed = try await licensing.renew(device: Self.device, licenseIds: [ids["1"]!, ids["4"]!, ids["5"]!, 12345])
            #expect(renewed.status == .ok)
            let result = try await licensing.licenses(in: renewed)
            #expect(result.licenses.map { $0["licenseId"] as? String } == [String(ids["1"]!)])
            #expect(Set(result.unlicensed) == [String(ids["4"]!), String(ids["5"]!), "12345"])
            // Another device cannot renew this device's license.
            let stolen = try await licensing.licenses(in: try await licensing.renew(device: "0000aaaa", licenseIds: [ids["1"]!]))
            #expect(stolen.unlicensed == [String(ids["1"]!)])
            let record = try #require(try await LicenseStore(database: runtime.database).licenses(ids: [ids["1"]!])[ids["1"]!])
            #expect(record.renewals == 1)
        }
    }

    @Test func garbageIsA400NeverA500() async throws {
        try await ServerFixture.with(.sqlite, prepare: AppDataTests.prepare) { client in
            let licensing = try await LicenseClient.make(client)
            let (request, key) = try licensing.sealed(DevelopmentLicenseRequest(requestId: 1, deviceId: "ab", action: .create, appleItemIds: [1]))
            let other = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
            let foreign = try LicenseCrypto.seal(request: Array("{}".utf8), for: other.publicKey)
            let (renewRequest, renewKey) = try licensing.sealed(DevelopmentLicenseRequest(requestId: 1, deviceId: "ab", action: .renew, licenseIds: [1]))
            let (notJSON, notJSONKey) = try { () throws -> (String, String) in
                let sealed = try LicenseCrypto.seal(request: Array("hello".utf8), for: licensing.encryptionKey)
                return (Data(sealed.request).base64EncodedString(), Data(sealed.licenseKey).base64EncodedString())
            }()
            let bodies = [
                "not json", "[]", "{}",
                #"{"licenseRequest": "%%%", "licenseKey": "\#(key)", "appsById": {"1": {}}}"#,
                #"{"licenseRequest": "\#(request)", "licenseKey": "AAAA", "appsById": {"1": {}}}"#,
                #"{"licenseRequest": "\#(request)", "licenseKey": "\#(Data(foreign.licenseKey).base64EncodedString())", "appsById": {"1": {}}}"#,
                #"{"licenseRequest": "\#(Data(repeating: 7, count: 32).base64EncodedString())", "licenseKey": "\#(key)", "appsById": {"1": {}}}"#,
                #"{"licenseRequest": "\#(request)", "licenseKey": "\#(key)", "appsById": {"one": {}}}"#,
                #"{"licenseRequest": "\#(request)", "licenseKey": "\#(key)", "appsById": {}}"#,
                #"{"licenseRequest": "\#(notJSON)", "licenseKey": "\#(notJSONKey)", "appsById": {"1": {}}}"#,
                #"{"licenseRequest": "\#(renewRequest)", "licenseKey": "\#(renewKey)", "appsById": {"1": {}}}"#,
            ]
            for body in bodies {
                let response = try await licensing.post("/marketplace-kit/v1/license", body)
                #expect(response.status == .badRequest, "\(body.prefix(60))")
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            for body in ["{}", #"{"renewalRequest": "\#(request)", "licenseKey": "\#(key)"}"#, #"{"renewalRequest": "AAAA", "licenseKey": "\#(key)"}"#] {
                #expect(try await licensing.post("/marketplace-kit/v1/license/renew", body).status == .badRequest)
            }
            let huge = String(repeating: " ", count: (1 << 20) + 1)
            #expect(try await licensing.post("/marketplace-kit/v1/license", huge).status == .contentTooLarge)
            #expect(try await licensing.post("/marketplace-kit/v1/license/renew", huge).status == .contentTooLarge)
        }
    }
}
