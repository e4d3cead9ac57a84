import Foundation
import SoukCore
import Testing

@Suite struct AppStoreConnectEventTests {
    @Test func signatureMatchesTheSpecTestVector() {
        let body = Array("Hello, World!".utf8)
        #expect(WebhookSignature.sign(body, secret: "This is my secret")
            == "hmacsha256=7f062172b01cb00b53ca068614674a3d982a34062a0f5d37687d5e3377e54657")
        #expect(WebhookSignature.isValid("hmacsha256=7f062172b01cb00b53ca068614674a3d982a34062a0f5d37687d5e3377e54657",
                                         body: body, secret: "This is my secret"))
        #expect(WebhookSignature.isValid("HMACSHA256=7F062172B01CB00B53CA068614674A3D982A34062A0F5D37687D5E3377E54657",
                                         body: body, secret: "This is my secret"))
        #expect(!WebhookSignature.isValid("hmacsha256=7f062172b01cb00b53ca068614674a3d982a34062a0f5d37687d5e3377e54658",
                                          body: body, secret: "This is my secret"))
        #expect(!WebhookSignature.isValid(nil, body: body, secret: "This is my secret"))
        #expect(!WebhookSignature.isValid("7f062172b01cb00b53ca068614674a3d982a34062a0f5d37687d5e3377e54657", body: body, secret: "This is my secret"))
        #expect(!WebhookSignature.isValid(WebhookSignature.sign(body, secret: "another secret"), body: body, secret: "This is my secret"))
    }

    func parse(_ text: String) throws -> AppStoreConnectEvent {
        try AppStoreConnectEvent.parse(Array(text.utf8))
    }

    @Test func readsTheThreeEventsSoukActsOn() throws {
        let available = try parse("""
            {"data": {"type": "AlternativeDistributionPackageVersionAvailable", "version": 1, "id": "e1", "timestamp": "2026-11-22T10:00:00Z",
             "attributes": {"marketplaceAppId": "6446000000", "appId": 6446000123, "alternativeDistributionPackageId": "pkg-1",
                            "alternativeDistributionPackageVersionId": "pkgv-1", "alternativeDistributionPackageVersionNum": 2,
                            "eventTimestamp": "2026-11-22T10:00:00Z"}}}
            """)
        #expect(available == AppStoreConnectEvent(id: "e1", type: "AlternativeDistributionPackageVersionAvailable",
                                                  kind: .packageVersionAvailable(appId: 6_446_000_123, packageId: "pkg-1", packageVersionId: "pkgv-1")))
        for spelling in ["AppVersionsUnavailable", "AppVersionUnavailable"] {
            let event = try parse(#"{"data": {"type": "\#(spelling)", "id": "e2", "attributes": {"alternativeDistributionPackageIds": ["pkg-1", "pkg-2"]}}}"#)
            #expect(event.kind == .versionsUnavailable(appId: nil, packageIds: ["pkg-1", "pkg-2"]))
        }
        #expect(try parse(#"{"data": {"type": "AppUnavailable", "id": "e3", "attributes": {"appId": "6446000123"}}}"#).kind
                == .appUnavailable(appId: 6_446_000_123))
        #expect(try parse(#"{"data": {"type": "SomethingNew", "id": "e4"}}"#).kind == .other("SomethingNew"))
    }

    @Test(arguments: [
        "", "[]", #"{"data": 1}"#, #"{"data": {"type": "AppUnavailable"}}"#,
        #"{"data": {"id": "e", "type": "AppUnavailable", "attributes": {"appId": "x"}}}"#,
        #"{"data": {"id": "e", "type": "AlternativeDistributionPackageVersionAvailable", "attributes": {"appId": "1"}}}"#,
        #"{"data": {"id": "e", "type": "AppVersionsUnavailable", "attributes": {"alternativeDistributionPackageIds": [true]}}}"#,
    ])
    func refusesWhatIsNotAnEvent(_ text: String) {
        #expect(throws: AppStoreConnectEvent.Malformed.self) { try parse(text) }
    }
}
