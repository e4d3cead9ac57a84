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
        #expect(VersionChoice.restore(versions, requested: 2, platform: .iOS, osVersion: OSVersion("18.0")!)?.appleVersionId == 2)
        #expect(VersionChoice.restore(versions, requested: 3, platform: .iOS, osVersion: OSVersion("17.5")!)?.appleVersionId == 2)
        #expect(VersionChoice.restore(versions, requested: nil, platform: .iOS, osVersion: OSVersion("18.0")!)?.appleVersionId == 3)
        #expect(VersionChoice.restore(versions, requested: 99, platform: .iOS, osVersion: OSVersion("17.0")!)?.appleVersionId == 1)
        #expect(VersionChoice.restore(versions, requested: nil, platform: .iOS, osVersion: OSVersion("16.0")!) == nil)
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
