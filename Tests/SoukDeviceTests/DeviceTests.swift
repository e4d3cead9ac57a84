import Foundation
import SoukCore
@testable import SoukDevice
import Testing

@Suite struct DeviceLinkTests {
    let token = "eyJhbGciOiJFUzI1NiJ9.e30.sig"

    func link(_ query: String) -> String { "marketplace-kit://install?" + query }

    @Test func readsEveryPartOfALink() throws {
        let parsed = try Device.parseLink(link("alternativeDistributionPackage=https%3A%2F%2Fapps.example.com%2Fpackages%2F1%2F2%2F&installVerificationToken=\(token)&token=sig_abc&account=ada%40example.com&appShareURL=https%3A%2F%2Fapps.example.com%2Fapps%2F1"),
                                          referrer: "https://apps.example.com/apps/1")
        #expect(parsed == Device.Link(package: "https://apps.example.com/packages/1/2/", installVerificationToken: token, token: "sig_abc",
                                      account: "ada@example.com", appShareURL: "https://apps.example.com/apps/1"))
    }

    @Test(arguments: [
        ("https://example.com/?x=1", DeviceError.Name.invalidAlternativeDistributionPackageURL),
        ("marketplace-kit://install?installVerificationToken=t", .invalidAlternativeDistributionPackageURL),
        ("marketplace-kit://install?alternativeDistributionPackage=http%3A%2F%2Fapps.example.com%2Fp%2F&installVerificationToken=t", .invalidAlternativeDistributionPackageURL),
        ("marketplace-kit://install?alternativeDistributionPackage=https%3A%2F%2Fapps.example.com%2Fp%2F", .missingInstallVerificationToken),
        ("marketplace-kit://install?alternativeDistributionPackage=https%3A%2F%2Fapps.example.com%2Fp%2F&installVerificationToken=", .missingInstallVerificationToken),
    ])
    func refusesWhatIOSRefuses(_ text: String, _ name: DeviceError.Name) {
        #expect(throws: DeviceError.self) { try Device.parseLink(text, referrer: nil) }
        do { _ = try Device.parseLink(text, referrer: nil) } catch let error as DeviceError { #expect(error.name == name) } catch {}
    }

    @Test func thePackageMustComeFromTheLinkingPagesHost() {
        let text = link("alternativeDistributionPackage=https%3A%2F%2Fcdn.example.net%2Fp%2F&installVerificationToken=\(token)")
        #expect(throws: DeviceError(.invalidAlternativeDistributionPackageURL, "the package host cdn.example.net is not the linking page's host")) {
            try Device.parseLink(text, referrer: "https://apps.example.com/apps/1")
        }
        #expect(throws: Never.self) { try Device.parseLink(text, referrer: nil) }
    }
}

@Suite struct DeviceVariantTests {
    func manifest(platforms: [Platform], minimum: String = "17.0", capabilities: [String] = ["arm64"],
                  targets: [(String, String)] = [("iphone", "ios"), ("ipad", "ios")]) -> PackageManifest {
        PackageManifest(appleItemId: 1, appleVersionId: 2, bundleId: "org.example", shortVersionString: "1.0", bundleVersion: "1",
                        platforms: platforms, minimumSystemVersions: Dictionary(uniqueKeysWithValues: platforms.map { ($0, OSVersion(minimum)!) }),
                        requiredDeviceCapabilities: capabilities,
                        variants: targets.map { .init(kind: .variant, publicId: $0.0, assetPath: "variant/\($0.0).ipa",
                                                      installTargets: [.init(device: $0.0, os: $0.1)], expectedSize: nil, chunkDigests: nil) },
                        deltas: [])
    }

    func device(platform: String = "iOS", os: String = "17.4", model: String = "iPhone15,2") throws -> Device {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        let store = DeviceStore(folder: folder)
        return Device(store: store, state: try store.load(platform: platform, osVersion: os, model: model), http: DeviceHTTP(verbose: false),
                      output: DeviceOutput(quiet: true))
    }

    @Test func choosesTheVariantForTheDeviceFamily() throws {
        #expect(try device().chooseVariant(manifest(platforms: [.iOS])).publicId == "iphone")
        #expect(try device(platform: "iPadOS", model: "iPad14,1").chooseVariant(manifest(platforms: [.iOS])).publicId == "ipad")
        // An iPad installs an iPhone-only app.
        #expect(try device(platform: "iPadOS", model: "iPad14,1").chooseVariant(manifest(platforms: [.iOS], targets: [("iphone", "ios")])).publicId == "iphone")
    }

    @Test func namesTheFaultLikeIOS() throws {
        func name(_ work: () throws -> Any) -> DeviceError.Name? {
            do { _ = try work(); return nil } catch let error as DeviceError { return error.name } catch { return nil }
        }
        let phone = try device()
        #expect(name { try phone.chooseVariant(manifest(platforms: [Platform(rawValue: "visionos")!])) } == .unsupportedPlatform)
        #expect(name { try phone.chooseVariant(manifest(platforms: [.iOS], minimum: "17.10")) } == .minimumPlatformVersionNotSatisfied)
        #expect(name { try phone.chooseVariant(manifest(platforms: [.iOS], capabilities: ["nfc-reader-9000"])) } == .missingCapabilities)
        #expect(name { try phone.chooseVariant(manifest(platforms: [.iOS], targets: [("ipad", "ios")])) } == .noSupportedVariant)
    }
}

@Suite struct DeviceStateTests {
    @Test func stateSurvivesASaveAndClientIdsAreStablePerDomainAndAccount() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        let store = DeviceStore(folder: folder)
        var state = try store.load(platform: nil, osVersion: "17.10", model: nil)
        #expect(state.deviceId.count == 32)
        let first = state.clientId(domain: "apps.example.com", account: "Ada@example.com")
        #expect(state.clientId(domain: "apps.example.com", account: "ada@example.com") == first)
        #expect(state.clientId(domain: "apps.example.com", account: "bob@example.com") != first)
        state.seenNonces = ["n1"]
        try store.save(state)
        let reloaded = try store.load(platform: nil, osVersion: nil, model: nil)
        #expect(reloaded.deviceId == state.deviceId)
        #expect(reloaded.osVersion == "17.10")
        #expect(reloaded.clients == state.clients)
        #expect(reloaded.seenNonces == ["n1"])
    }

    @Test func progressLinesShowPercentBytesRateAndETA() {
        let line = Device.progressLine(received: 524_288, total: 1_048_576, elapsed: 1)
        #expect(line.contains("50%"))
        #expect(line.contains("512 KB of 1.0 MB"))
        #expect(line.contains("512 KB/s"))
        #expect(line.contains("ETA 1s"))
    }

    @Test func readsTheLicensesOfADevelopmentLicense() {
        let payload = Base64URL.encode(Data(#"{"licenses": [{"licenseId": "42", "appleItemId": "7", "issuedTime": 1000, "duration": 60}]}"#.utf8))
        let licenses = Device.developmentLicenses(Data("e30.\(payload).sig".utf8))
        #expect(licenses.map(\.licenseId) == [42])
        #expect(licenses.first?.expiresAt == Date(timeIntervalSince1970: 1060))
        #expect(Device.developmentLicenses(Data([1, 2, 3])).isEmpty)  // an opaque SDK license
    }
}

@Suite struct VerificationClaimsTests {
    let manifest = PackageManifest(appleItemId: 1, appleVersionId: 2, bundleId: "org.example", shortVersionString: "1", bundleVersion: "1",
                                   platforms: [.iOS], minimumSystemVersions: [:], requiredDeviceCapabilities: [], variants: [], deltas: [])
    let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"K1","typ":"JWT"}"#.utf8)) + ".e30.sig"

    func claims(aud: String = "AppleDownloadVerification-v1", bid: String = "org.example", iat: Int64 = Int64(Date().timeIntervalSince1970),
                lifetime: Int64 = 1200, dtype: String = "download", vid: String = "2") -> VerificationClaims {
        VerificationClaims(iss: "9", iat: iat, exp: iat + lifetime, aud: aud, bid: bid, dtype: dtype, nonce: "n", iid: "1", vid: vid)
    }

    @Test func aGoodTokenHasNoProblems() {
        #expect(claims().problems(token: header, manifest: manifest).isEmpty)
    }

    @Test func everyRuleOfSection4IsChecked() {
        #expect(claims(aud: "other").problems(token: header, manifest: manifest) == ["aud is other"])
        #expect(claims(bid: "org.other").problems(token: header, manifest: manifest).count == 1)
        #expect(claims(iat: 1000).problems(token: header, manifest: manifest) == ["the token expired"])
        #expect(claims(lifetime: 7200).problems(token: header, manifest: manifest) == ["the token lives longer than an hour"])
        #expect(claims(dtype: "update").problems(token: header, manifest: manifest) == ["dtype is update"])
        #expect(claims(vid: "3").problems(token: header, manifest: manifest) == ["vid does not match the manifest"])
        let noKid = Base64URL.encode(Data(#"{"alg":"HS256"}"#.utf8)) + ".e30.sig"
        #expect(claims().problems(token: noKid, manifest: manifest) == ["alg is not ES256", "the header has no kid"])
    }
}
