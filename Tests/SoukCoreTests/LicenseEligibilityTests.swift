import Foundation
import SoukCore
import Testing

/// The license policy decided before anything is written (spec §3.1).
@Suite struct LicenseEligibilityTests {
    static func version(_ id: UInt64) -> CatalogVersion {
        CatalogVersion(appleVersionId: id, bundleVersion: "\(id)", shortVersionString: "1.\(id)", platforms: [.iOS],
                       minimumOS: [.iOS: OSVersion("17.0")!], releaseDate: Date(timeIntervalSince1970: TimeInterval(id)))
    }

    static func app(access: AccessPolicy = .public, availability: Availability = .available) -> CatalogApp {
        CatalogApp(appleItemId: 1, bundleId: "org.example.one", access: access, availability: availability,
                   versions: [version(101), version(102)], withdrawnVersions: [version(100)])
    }

    @Test func theRequestedVersionOrElseTheNewestIsLicensed() {
        #expect(LicenseEligibility.decide(app: Self.app(), requestedVersion: 101, asker: .anonymous) == .eligible(Self.version(101)))
        #expect(LicenseEligibility.decide(app: Self.app(), requestedVersion: nil, asker: .anonymous) == .eligible(Self.version(102)))
    }

    @Test func unknownUnavailableAndUnofferedAreRefused() {
        #expect(LicenseEligibility.decide(app: nil, requestedVersion: nil, asker: .anonymous) == .refused(.unknownApp))
        #expect(LicenseEligibility.decide(app: Self.app(availability: .takenDown), requestedVersion: 101, asker: .anonymous) == .refused(.unavailable))
        #expect(LicenseEligibility.decide(app: Self.app(), requestedVersion: 999, asker: .anonymous) == .refused(.versionUnavailable))
        // A withdrawn version is no longer offered.
        #expect(LicenseEligibility.decide(app: Self.app(), requestedVersion: 100, asker: .anonymous) == .refused(.versionUnavailable))
    }

    @Test func accountAppsNeedAnActiveAccount() {
        let gated = Self.app(access: .account)
        #expect(LicenseEligibility.decide(app: gated, requestedVersion: nil, asker: .anonymous) == .refused(.accountRequired))
        #expect(LicenseEligibility.decide(app: gated, requestedVersion: nil, asker: .account(disabled: true)) == .refused(.accountDisabled))
        #expect(LicenseEligibility.decide(app: gated, requestedVersion: nil, asker: .account(disabled: false)) == .eligible(Self.version(102)))
        #expect(LicenseEligibility.decide(app: Self.app(), requestedVersion: nil, asker: .account(disabled: true)) == .refused(.accountDisabled))
    }

    @Test func onlyTheVersionsOwnAssetGivesAKeyBlob() {
        #expect(LicenseEligibility.keyBlob(asset: nil, match: nil) == .success(nil))
        #expect(LicenseEligibility.keyBlob(asset: "a", match: .keyBlob("KEY")) == .success("KEY"))
        #expect(LicenseEligibility.keyBlob(asset: "a", match: .withoutKeyBlob) == .success(nil))
        #expect(LicenseEligibility.keyBlob(asset: "a", match: .notInVersion) == .failure(LicenseRefusalError(refusal: .assetNotInVersion)))
    }
}
