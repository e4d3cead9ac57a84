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

/// A local stand-in for the sidecar that links Apple's SDK, speaking the documented contract: it
/// "reads" requests in Souk's development format and returns the licenses it was asked for as JSON.
final class FakeLicenseSidecar: Sendable {
    static let token = "sidecar-shared-token"
    let received = Mutex<[String]>([])
    let failing = Mutex(false)

    func reply(_ status: HTTPResponse.Status, _ json: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.post("v1/requests/read") { request, context -> Response in
            guard request.headers[.authorization] == "Bearer \(Self.token)" else { return self.reply(.unauthorized, "{}") }
            if self.failing.withLock({ $0 }) { return self.reply(.internalServerError, #"{"error": "SDK crashed"}"#) }
            let body = try JSONValue.parse(Array(buffer: try await request.body.collect(upTo: 1 << 20)))
            guard let opaque = body["request"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
                  let parsed = try? DevelopmentLicenseRequest.parse(Array(opaque)) else {
                return self.reply(.badRequest, #"{"error": "the SDK cannot read this request"}"#)
            }
            let ids = parsed.licenseIds.map { #""\#($0)""# }.joined(separator: ",")
            return self.reply(.ok, #"{"deviceId": "\#(parsed.deviceId)", "requestId": "\#(parsed.requestId)", "licenseIds": [\#(ids)]}"#)
        }
        router.post("v1/licenses") { request, _ -> Response in
            guard request.headers[.authorization] == "Bearer \(Self.token)" else { return self.reply(.unauthorized, "{}") }
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            self.received.withLock { $0.append(text) }
            let blob = Data(("SDK-LICENSE:" + text).utf8).base64EncodedString()
            return self.reply(.ok, #"{"license": "\#(blob)"}"#)
        }
        return router
    }
}

@Suite struct LicenseSidecarTests {
    @Test func theSidecarReadsRequestsAndBuildsLicensesWhileSoukKeepsThePolicy() async throws {
        let sidecar = FakeLicenseSidecar()
        try await Application(router: sidecar.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { sidecarClient in
            let port = try #require(sidecarClient.port)
            let box = Box<SoukRuntime>()
            try await ServerFixture.with(.sqlite, configure: { config in
                config.licensing.issuer = "sidecar"
                config.licensing.sidecarURL = "http://127.0.0.1:\(port)"
                config.licensing.sidecarToken = FakeLicenseSidecar.token
            }, prepare: { runtime, paths in
                try await AppDataTests.prepare(runtime, paths)
                try await LicenseStore(database: runtime.database).setKeyBlob(assetPublicId: "variant-1", appleItemId: 1, appleVersionId: 102,
                                                                              keyBlob: "S0VZQkxPQg==")
                box.value = runtime
            }) { client in
                let licensing = try await LicenseClient.make(client)
                let response = try await licensing.request(device: "c0ffee", apps: [(1, 102), (3, 301)], assets: [1: "variant-1"])
                #expect(response.status == .ok)
                let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(body["unlicensedApps"] as? [String] == ["3"])  // Souk's policy: taken down
                let encoded = try #require(body["license"] as? String)
                let license = String(decoding: try #require(Data(base64Encoded: encoded)), as: UTF8.self)
                #expect(license.hasPrefix("SDK-LICENSE:"))
                let sent = try #require(sidecar.received.withLock { $0.last })
                #expect(sent.contains(#""keyBlob":"S0VZQkxPQg==""#))
                #expect(sent.contains(#""assetPublicId":"variant-1""#))
                #expect(sent.contains(#""deviceId":"c0ffee""#))
                let issued = try await LicenseStore(database: box.value!.database).list(appleItemId: 1)
                #expect(issued.count == 1)
                #expect(sent.contains(#""licenseId":"\#(issued[0].licenseId)""#))

                let renewal = try await licensing.renew(device: "c0ffee", licenseIds: [issued[0].licenseId, 77])
                let renewed = try #require(try JSONSerialization.jsonObject(with: Data(buffer: renewal.body)) as? [String: Any])
                #expect(renewed["ineligibleLicenses"] as? [String] == ["77"])

                // What the SDK cannot read is the device's fault (400); a failing sidecar is a 502.
                let unreadable = try await licensing.post("/marketplace-kit/v1/license", {
                    let sealed = try! LicenseCrypto.seal(request: Array("opaque".utf8), for: licensing.encryptionKey)
                    return #"{"licenseRequest": "\#(Data(sealed.request).base64EncodedString())", "licenseKey": "\#(Data(sealed.licenseKey).base64EncodedString())", "appsById": {"1": {}}}"#
                }())
                #expect(unreadable.status == .badRequest)
                sidecar.failing.withLock { $0 = true }
                #expect(try await licensing.request(device: "c0ffee", apps: [(1, 102)]).status == .badGateway)
            }
        }
    }
}
