import Foundation
@testable import SoukCore
import Testing

@Suite struct AppsRequestFastPathTests {
    func fast(_ text: String) -> AppsRequest? {
        Array(text.utf8).withUnsafeBytes { AppsRequestFastPath.parse($0) }
    }

    func general(_ text: String) -> Result<AppsRequest, AppsRequest.Problem> {
        Array(text.utf8).withUnsafeBytes { AppsRequest.parseGeneral($0) }
    }

    @Test func readsWhatDevicesSend() {
        let request = fast(#" {"apps": [{"appleItemId": "6446000001", "appleVersionId": "8000000102"}, {"appleItemId": 7, "appleVersionID": "0"}], "platform": "iOS", "osVersion": "17.10"} "#)
        #expect(request == AppsRequest(apps: [.init(appleItemId: 6_446_000_001, appleVersionId: 8_000_000_102), .init(appleItemId: 7, appleVersionId: nil)],
                                       platform: Platform(rawValue: "ios")!, osVersion: OSVersion("17.10")!))
    }

    @Test(arguments: [
        #"{"apps": [{"appleItemId": "1", "appleVersionId": null}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": "1", "extra": 1}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": "1\u0030"}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": 1.0}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": -1}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": 01}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": "1", "appleItemId": "2"}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": "99999999999999999999999"}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [], "platform": "iOS", "osVersion": "17.4", "more": true}"#,
        #"{"apps": [], "platform": "iOS", "osVersion": "17.4"} x"#,
        #"{"apps": [], "platform": "iOS"}"#,
        #"{"apps": [{}], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [{"appleItemId": "1"},], "platform": "iOS", "osVersion": "17.4"}"#,
        #"{"apps": [], "platform": "iØS", "osVersion": "17.4"}"#,
    ])
    func leavesEverythingElseToTheGeneralParser(_ text: String) {
        #expect(fast(text) == nil)
    }

    /// Random variations of the device shape: wherever the fast path answers, it agrees with the
    /// general parser.
    @Test func agreesWithTheGeneralParser() {
        var generator = SystemRandomNumberGenerator()
        let ids = ["\"1\"", "1", "\"0\"", "0", "\"18446744073709551615\"", "18446744073709551615", "\"18446744073709551616\"",
                   "\"\"", "\"01\"", "null", "true", "1e3", "\"12a\"", "-0", "\"6446000001\""]
        let versionKeys = ["appleVersionId", "appleVersionID", "appleversionid"]
        let spaces = ["", " ", "\n\t "]
        var answered = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 0...4, using: &generator)
            let apps = (0..<count).map { _ -> String in
                var members: [String] = []
                if Int.random(in: 0..<8, using: &generator) != 0 { members.append(#""appleItemId":\#(spaces.randomElement()!)\#(ids.randomElement()!)"#) }
                if Bool.random(using: &generator) { members.append(#""\#(versionKeys.randomElement()!)": \#(ids.randomElement()!)"#) }
                if Bool.random(using: &generator) { members.shuffle(using: &generator) }
                return "{" + members.joined(separator: ",\(spaces.randomElement()!)") + "}"
            }
            var members = [#""apps": [\#(apps.joined(separator: ","))]"#,
                           #""platform": "\#(["iOS", "ipados", "IOS", "", "tvos!"].randomElement()!)""#,
                           #""osVersion": "\#(["17.4", "17.10", "18", "x", ""].randomElement()!)""#]
            members.shuffle(using: &generator)
            if Int.random(in: 0..<10, using: &generator) == 0 { members.removeLast() }
            let text = spaces.randomElement()! + "{" + members.joined(separator: ",") + "}" + spaces.randomElement()!
            if let answer = fast(text) {
                answered += 1
                #expect(general(text) == .success(answer), "\(text)")
            }
        }
        #expect(answered > 100)  // the comparison is not vacuous
    }
}
