import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import SoukCore
@testable import SoukDevice
import Synchronization
import Testing
import X509
import _CryptoExtras

/// A marketplace small enough to read in one sitting: every endpoint an install from a link meets,
/// recording each call in order, with faults to switch on. It serves app 1, version 2 (bundle
/// `org.example.app`) from `/packages/1/2/`; the link's token says `download`, the restore item's
/// `redownload`, so a test can tell which one the device used.
final class FakeMarketplace: Sendable {
    struct Call: Sendable, Equatable {
        var method: String
        var path: String
        var authorization: String?
        var body: String
    }

    enum RestoreAnswer: Sendable {
        case item
        case failure
        case packageURL(String)
        case noToken
        case otherVersion
    }

    let calls = Mutex<[Call]>([])
    let port = Mutex<Int>(0)
    let restoreAnswer: RestoreAnswer
    let tokenEndpoint: String?
    let variant: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
    let chunkSize = 65_536
    let signingKey = P256.Signing.PrivateKey()
    let keys = JWTKeyCollection()

    /// One RSA certificate for every fake (a key takes a while to make in a debug build).
    static let certificate = Result<[UInt8], any Error> {
        let key = Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        let name = try DistinguishedName { CommonName("Fake marketplace") }
        let certificate = try Certificate(version: .v3, serialNumber: .init(), publicKey: key.publicKey,
                                          notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86_400),
                                          issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
                                          extensions: Certificate.Extensions(), issuerPrivateKey: key)
        return try certificate.serializeAsPEM().derBytes
    }

    init(restore: RestoreAnswer = .item, tokenEndpoint: String? = nil) {
        restoreAnswer = restore
        self.tokenEndpoint = tokenEndpoint
    }

    var base: String { "http://127.0.0.1:\(port.withLock { $0 })" }
    var package: String { base + "/packages/1/2/" }

    /// The calls that make up an install, in order (fetches of well-known documents and keys left out).
    var steps: [String] {
        let kept: Set = ["/oauth/token", "/license", "/restore", "/packages/1/2/manifest.json", "/packages/1/2/variant/app.ipa"]
        return calls.withLock { $0 }.filter { kept.contains($0.path) }.map { "\($0.method) \($0.path)" }
    }

    func call(_ path: String) -> Call? {
        calls.withLock { $0 }.first { $0.path == path }
    }

    /// An install verification token for the app, as a marketplace signs it (spec §4).
    func token(dtype: String) async throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = VerificationClaims(iss: "9", iat: now, exp: now + 1200, aud: "AppleDownloadVerification-v1", bid: "org.example.app",
                                        dtype: dtype, nonce: UUID().uuidString, iid: "1", vid: "2")
        return try await keys.sign(claims, kid: JWKIdentifier(string: "K1"), header: ["typ": "JWT"])
    }

    var manifest: String {
        let digests = stride(from: 0, to: variant.count, by: chunkSize).map { start in
            "\"" + SHA256.hash(data: variant[start..<min(start + chunkSize, variant.count)]).map { String(format: "%02x", $0) }.joined() + "\""
        }
        return """
        {"appleItemId": "1", "appleVersionId": "2", "bundleId": "org.example.app", "shortVersionString": "1.0", "bundleVersion": "1",
         "platforms": ["ios"], "minimumSystemVersions": {"ios": "17.0"}, "requiredDeviceCapabilities": ["arm64"],
         "variants": [{"publicId": "app", "assetPath": "variant/app.ipa", "installTargets": [{"device": "iphone", "os": "ios"}],
                       "variantDetails": {"compressedSize": \(variant.count),
                                          "hashes": [{"algorithm": "sha256", "chunkSize": \(chunkSize), "encryptedChunkDigests": [\(digests.joined(separator: ","))]}]}}]}
        """
    }

    func restoreBody() async throws -> String {
        let item = { (version: String, package: String, token: String?) in
            #"{"restores": [{"appleItemId": "1", "appleVersionId": "\#(version)", "alternativeDistributionPackage": "\#(package)""#
                + (token.map { #", "installVerificationToken": "\#($0)""# } ?? "") + #", "appShareURL": "\#(self.base)/apps/1"}], "failures": []}"#
        }
        switch restoreAnswer {
        case .item: return item("2", package, try await token(dtype: "redownload"))
        case .failure: return #"{"restores": [], "failures": [{"appleItemId": "1", "appleVersionId": "2", "failure": {"code": 404, "description": "App unavailable."}}]}"#
        case .packageURL(let url): return item("2", url, try await token(dtype: "redownload"))
        case .noToken: return item("2", package, nil)
        case .otherVersion: return item("3", package, try await token(dtype: "redownload"))
        }
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Records every request (method, path, bearer, body) before it is answered.
    struct Recorder<Context: RequestContext>: RouterMiddleware {
        let server: FakeMarketplace

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            server.calls.withLock {
                $0.append(Call(method: request.method.rawValue, path: request.uri.path, authorization: request.headers[.authorization],
                               body: String(decoding: body.readableBytesView, as: UTF8.self)))
            }
            return try await next(request, context)
        }
    }

    func router() async throws -> Router<BasicRequestContext> {
        await keys.add(ecdsa: try ES256PrivateKey(pem: signingKey.pemRepresentation), kid: JWKIdentifier(string: "K1"))
        let certificate = try Self.certificate.get()
        let router = Router()
        router.add(middleware: Recorder(server: self))
        router.get(".well-known/oauth-authorization-server") { _, _ in
            Self.json(#"{"issuer": "\#(self.base)", "authorization_endpoint": "\#(self.base)/oauth/authorize", "token_endpoint": "\#(self.tokenEndpoint ?? self.base + "/oauth/token")", "jwks_uri": "\#(self.base)/jwks"}"#)
        }
        router.post("oauth/token") { _, _ in
            Self.json(#"{"access_token": "AT-exchanged", "token_type": "Bearer", "expires_in": 3600}"#)
        }
        router.get(".well-known/marketplace-kit") { _, _ in
            Self.json(#"""
            {"restore": "\#(self.base)/restore", "updates": {"url": "\#(self.base)/updates", "pollingInterval": 24},
             "license": {"dynamicLicenseURL": "\#(self.base)/license", "licenseRenewalURL": "\#(self.base)/renew",
                         "encryptionCertificateURL": "\#(self.base)/encryption.cer", "signingCertificateURL": "\#(self.base)/encryption.cer"}}
            """#)
        }
        router.get("encryption.cer") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: certificate))) }
        router.post("license") { _, _ in Self.json(#"{"license": "\#(Data("an opaque license".utf8).base64EncodedString())"}"#) }
        router.post("restore") { _, _ in Self.json(try await self.restoreBody()) }
        router.get("packages/1/2/manifest.json") { _, _ in Self.json(self.manifest) }
        router.get("packages/1/2/variant/app.ipa") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: self.variant))) }
        router.get("jwks") { _, _ in
            let raw = self.signingKey.publicKey.rawRepresentation
            return Self.json(#"{"keys": [{"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": "K1", "x": "\#(Base64URL.encode(raw.prefix(32)))", "y": "\#(Base64URL.encode(raw.suffix(32)))"}]}"#)
        }
        return router
    }

    /// Runs `body` with a device talking to this marketplace on a live port.
    func run(_ body: @Sendable (Device) async throws -> Void) async throws {
        try await Application(router: try await router(), configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            self.port.withLock { $0 = port }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            let store = DeviceStore(folder: folder)
            let http = DeviceHTTP(verbose: false)
            let device = Device(store: store, state: try store.load(platform: nil, osVersion: nil, model: nil), http: http, output: DeviceOutput(quiet: true))
            do {
                try await body(device)
            } catch {
                await http.shutdown()
                throw error
            }
            await http.shutdown()
        }
    }

    func link() async throws -> Device.Link {
        Device.Link(package: package, installVerificationToken: try await token(dtype: "download"), token: "grant-from-the-website",
                    account: "ada@example.com", appShareURL: nil)
    }
}

/// The fault a call ends in, or nil when it succeeds.
func faultName(_ work: () async throws -> Void) async -> DeviceError.Name? {
    do {
        try await work()
        return nil
    } catch let error as DeviceError {
        return error.name
    } catch {
        Issue.record("not a DeviceError: \(error)")
        return nil
    }
}

@Suite struct InstallFromLinkTests {
    @Test func followsSection0ExchangeThenLicenseThenRestoreThenDownload() async throws {
        let server = FakeMarketplace()
        try await server.run { device in
            let app = try await device.install(link: try await server.link())
            #expect(server.steps == ["POST /oauth/token", "GET /packages/1/2/manifest.json", "POST /license", "POST /restore",
                                     "GET /packages/1/2/variant/app.ipa"])
            // The license and the restore carry the exchange's bearer; the restore names the link's app and version.
            #expect(server.call("/license")?.authorization == "Bearer AT-exchanged")
            #expect(server.call("/restore")?.authorization == "Bearer AT-exchanged")
            let restore = try #require(server.call("/restore")?.body)
            #expect(restore.contains(#""apps":[{"appleItemId":"1","appleVersionId":"2"}]"#))
            // The install used the restore item's token; the link's is recorded beside it.
            #expect(app.dtype == "redownload")
            #expect(app.linkDtype == "download")
            #expect(device.state.installs == [app])
            #expect(device.state.seenNonces.count == 2)
            let installed = try Data(contentsOf: URL(fileURLWithPath: device.store.apps + "/app.ipa"))
            #expect(Array(installed) == server.variant)
        }
    }

    @Test(arguments: [
        (FakeMarketplace.RestoreAnswer.failure, DeviceError.Name.appNotAvailable),
        (.noToken, .missingInstallVerificationToken),
        (.otherVersion, .protocolViolation),
        (.packageURL("packages/1/2/"), .invalidAlternativeDistributionPackageURL),
        (.packageURL("http://[::1"), .invalidAlternativeDistributionPackageURL),
        (.packageURL("https://cdn.example.net/packages/1/2/"), .invalidAlternativeDistributionPackageURL),
        (.packageURL("ftp://127.0.0.1/packages/1/2/"), .invalidAlternativeDistributionPackageURL),
    ])
    func aRestoreAnswerThatCannotBeInstalledIsANamedFaultAndNothingIsDownloaded(_ answer: FakeMarketplace.RestoreAnswer,
                                                                                 _ name: DeviceError.Name) async throws {
        let server = FakeMarketplace(restore: answer)
        try await server.run { device in
            let link = try await server.link()
            #expect(await faultName { _ = try await device.install(link: link) } == name)
            #expect(server.call("/packages/1/2/variant/app.ipa") == nil)
            #expect(device.state.installs.isEmpty)
        }
    }

    @Test func aMalformedURLInARestoreFromBackupIsANamedFault() async throws {
        let server = FakeMarketplace(restore: .packageURL("::not a url::"))
        try await server.run { device in
            device.state.install(DeviceState.InstalledApp(appleItemId: 1, appleVersionId: 2, bundleId: "org.example.app", shortVersionString: "1.0",
                                                          packageURL: server.package, domain: "127.0.0.1", account: nil, installedAt: Date()))
            #expect(await faultName { _ = try await device.restore(forgetTokens: false) } == .invalidAlternativeDistributionPackageURL)
        }
    }

    @Test func aMalformedTokenEndpointIsANamedFault() async throws {
        let server = FakeMarketplace(tokenEndpoint: "not a URL at all")
        try await server.run { device in
            let link = try await server.link()
            #expect(await faultName { _ = try await device.install(link: link) } == .oauthTokenError)
            #expect(server.steps.isEmpty)
        }
    }

    @Test func aStateWithAMalformedPackageURLIsANamedFault() async throws {
        let server = FakeMarketplace()
        try await server.run { device in
            device.state.install(DeviceState.InstalledApp(appleItemId: 1, appleVersionId: 2, bundleId: "org.example.app", shortVersionString: "1.0",
                                                          packageURL: "%%%", domain: "127.0.0.1", account: nil, installedAt: Date()))
            #expect(await faultName { _ = try await device.updates(force: true) } == .invalidAlternativeDistributionPackageURL)
        }
    }
}
