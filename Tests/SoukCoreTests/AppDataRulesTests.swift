import Foundation
import SoukCore
import Testing

@Suite struct AppsRequestTests {
    func parse(_ json: String) -> Result<AppsRequest, AppsRequest.Problem> {
        AppsRequest.parse(Data(json.utf8))
    }

    @Test func toleratesWhatDevicesSend() throws {
        let request = try parse("""
            {"apps": [{"appleItemId": "6476788646", "appleVersionId": "863214182"},
                      {"appleItemId": 42, "appleVersionID": 7},
                      {"appleItemId": "43", "appleVersionId": "0"},
                      {"appleItemId": "44"}],
             "platform": "IOS", "osVersion": "17.4"}
            """).get()
        #expect(request.apps == [.init(appleItemId: 6_476_788_646, appleVersionId: 863_214_182), .init(appleItemId: 42, appleVersionId: 7),
                                 .init(appleItemId: 43, appleVersionId: nil), .init(appleItemId: 44, appleVersionId: nil)])
        #expect(request.platform == .iOS)
        #expect(request.osVersion == OSVersion("17.4"))
    }

    @Test(arguments: [
        "", "[]", #"{"apps": {}, "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [], "osVersion": "17.4"}"#, #"{"apps": [], "platform": "iOS", "osVersion": "seventeen"}"#,
        #"{"apps": [{"appleItemId": "abc"}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": true}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": "1", "appleVersionId": -5}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [5], "platform": "iOS", "osVersion": "17.4"}"#,
    ])
    func refusesMalformedBodies(_ json: String) {
        guard case .failure(.malformed) = parse(json) else { Issue.record("accepted \(json)"); return }
    }

    @Test func refusesMoreThanAThousandApps() {
        let apps = (0...1000).map { #"{"appleItemId": "\#($0 + 1)"}"# }.joined(separator: ",")
        #expect(parse(#"{"apps": [\#(apps)], "platform": "iOS", "osVersion": "17.4"}"#) == .failure(.tooMany(1001)))
    }
}

@Suite struct VersionChoiceTests {
    static func version(_ id: UInt64, min: String, day: Double, platforms: [Platform] = [.iOS]) -> CatalogVersion {
        CatalogVersion(appleVersionId: id, bundleVersion: "\(id)", shortVersionString: "1.\(id)", platforms: platforms,
                       minimumOS: Dictionary(uniqueKeysWithValues: platforms.map { ($0, OSVersion(min)!) }),
                       releaseDate: Date(timeIntervalSince1970: day * 86_400))
    }

    let versions = [version(1, min: "17.0", day: 1), version(2, min: "17.4", day: 2), version(3, min: "17.10", day: 3)]

    @Test func compatibilityComparesVersionsNumericallyAndMatchesIPadToIOS() {
        #expect(VersionChoice.isCompatible(versions[2], platform: .iOS, osVersion: OSVersion("17.10")!))
        #expect(!VersionChoice.isCompatible(versions[2], platform: .iOS, osVersion: OSVersion("17.9")!))
        #expect(VersionChoice.isCompatible(versions[0], platform: .iPadOS, osVersion: OSVersion("17.0")!))
        #expect(!VersionChoice.isCompatible(versions[0], platform: Platform(rawValue: "visionos")!, osVersion: OSVersion("2.0")!))
    }

    @Test func restoreGivesTheRequestedVersionOrTheNewestCompatible() {
        #expect(VersionChoice.restore(versions, requested: 2, platform: .iOS, osVersion: OSVersion("18.0")!) == .restore(versions[1]))
        #expect(VersionChoice.restore(versions, requested: 3, platform: .iOS, osVersion: OSVersion("17.5")!) == .restore(versions[1]))
        #expect(VersionChoice.restore(versions, requested: nil, platform: .iOS, osVersion: OSVersion("18.0")!) == .restore(versions[2]))
        #expect(VersionChoice.restore(versions, requested: 99, platform: .iOS, osVersion: OSVersion("17.0")!) == .restore(versions[0]))
        #expect(VersionChoice.restore(versions, requested: nil, platform: .iOS, osVersion: OSVersion("16.0")!) == .noCompatibleVersion)
    }

    @Test func restoreOfAWithdrawnVersionFailsInsteadOfSwappingIt() {
        let offered = [versions[0], versions[2]], withdrawn = [versions[1]]
        #expect(VersionChoice.restore(offered, withdrawn: withdrawn, requested: 2, platform: .iOS, osVersion: OSVersion("18.0")!) == .withdrawn)
        #expect(VersionChoice.restore(offered, withdrawn: withdrawn, requested: nil, platform: .iOS, osVersion: OSVersion("18.0")!) == .restore(versions[2]))
    }

    @Test func updatesNeverOfferAnOlderVersionThanAWithdrawnOneInstalled() {
        // 3 withdrawn, 1 and 2 still offered: a device on 3 is offered nothing older.
        let offered = [versions[0], versions[1]], withdrawn = [versions[2]]
        #expect(VersionChoice.update(offered, withdrawn: withdrawn, installed: 3, platform: .iOS, osVersion: OSVersion("18.0")!) == .withdrawn)
        // 2 withdrawn, 3 newer: the update to 3 is offered.
        #expect(VersionChoice.update([versions[0], versions[2]], withdrawn: [versions[1]], installed: 2,
                                     platform: .iOS, osVersion: OSVersion("18.0")!) == .newer(versions[2]))
        // ... unless 3 does not run on the device.
        #expect(VersionChoice.update([versions[0], versions[2]], withdrawn: [versions[1]], installed: 2,
                                     platform: .iOS, osVersion: OSVersion("17.5")!) == .withdrawn)
    }

    @Test func updatesOfferOnlyNewerCompatibleVersions() {
        #expect(VersionChoice.update(versions, installed: 1, platform: .iOS, osVersion: OSVersion("18.0")!) == .newer(versions[2]))
        #expect(VersionChoice.update(versions, installed: 1, platform: .iOS, osVersion: OSVersion("17.5")!) == .newer(versions[1]))
        #expect(VersionChoice.update(versions, installed: 2, platform: .iOS, osVersion: OSVersion("17.5")!) == .current)
        #expect(VersionChoice.update(versions, installed: 3, platform: .iOS, osVersion: OSVersion("18.0")!) == .current)
        #expect(VersionChoice.update(versions, installed: nil, platform: .iOS, osVersion: OSVersion("18.0")!) == .newer(versions[2]))
        #expect(VersionChoice.update(versions, installed: 1, platform: .iOS, osVersion: OSVersion("16.0")!) == .noCompatibleVersion)
    }
}

@Suite struct AppDataDecisionTests {
    let v1 = VersionChoiceTests.version(1, min: "17.0", day: 1)
    let v2 = VersionChoiceTests.version(2, min: "17.0", day: 2)

    func app(_ availability: Availability = .available, access: AccessPolicy = .public) -> CatalogApp {
        CatalogApp(appleItemId: 10, bundleId: "com.example.a", access: access, availability: availability,
                   versions: [v1], withdrawnVersions: [v2])
    }

    func decide(_ kind: AppDataKind, version: UInt64?, _ app: CatalogApp?) -> AppDataOutcome {
        AppDataDecision.decide(kind, .init(appleItemId: 10, appleVersionId: version), app: app, platform: .iOS, osVersion: OSVersion("17.4")!)
    }

    @Test func unknownRemovedAndTakenDownAppsFail() {
        #expect(decide(.restore, version: nil, nil) == .fail("App unavailable."))
        #expect(decide(.updates, version: 1, app(.removedByDeveloper)) == .fail("The developer removed this app."))
        #expect(decide(.restore, version: 1, app(.takenDown)) == .fail("This app is no longer available."))
    }

    @Test func withdrawnVersionsFailForRestoreAndUpdates() {
        #expect(decide(.restore, version: 2, app()) == .fail("This version of the app was withdrawn."))
        #expect(decide(.updates, version: 2, app()) == .fail("This version of the app was withdrawn."))
        #expect(decide(.restore, version: 1, app()) == .offer(v1))
        #expect(decide(.updates, version: 1, app()) == .skip)
    }

    @Test func onlyAvailableAccountAppsNeedSignIn() {
        let request: [AppsRequest.App] = [.init(appleItemId: 10, appleVersionId: nil)]
        #expect(AppDataDecision.needsSignIn(request, apps: [10: app(access: .account)]))
        #expect(!AppDataDecision.needsSignIn(request, apps: [10: app(.takenDown, access: .account)]))
        #expect(!AppDataDecision.needsSignIn(request, apps: [10: app()]))
        #expect(!AppDataDecision.needsSignIn(request, apps: [:]))
    }
}

@Suite struct DownloadTypeRuleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theCallsOfOneInstallShareTheTypeAndLaterInstallsRedownload() {
        #expect(DownloadTypeRule.downloadType(device: "iphone", installs: [], now: start) == .download)
        #expect(DownloadTypeRule.downloadType(device: nil, installs: [], now: start) == .download)
        let first = [DownloadTypeRule.Install(device: "iphone", downloadType: .download, firstAt: start)]
        // License, then restore, minutes apart: still the first install.
        #expect(DownloadTypeRule.downloadType(device: "iphone", installs: first, now: start + 600) == .download)
        // The same device reinstalling the next day, another device, or a link: redownload.
        #expect(DownloadTypeRule.downloadType(device: "iphone", installs: first, now: start + 86_400) == .redownload)
        #expect(DownloadTypeRule.downloadType(device: "ipad", installs: first, now: start + 60) == .redownload)
        #expect(DownloadTypeRule.downloadType(device: nil, installs: first, now: start + 60) == .redownload)
    }
}
