import Foundation

/// The body of a `restore` or `updates` request (spec §6), decoded the tolerant way devices need:
/// ids as strings or numbers, `appleVersionId` or `appleVersionID`, `platform` in any case, and
/// `"0"` (or no version) meaning "the latest".
public struct AppsRequest: Sendable, Equatable {
    /// At most this many apps per request; a device has far fewer.
    public static let maxApps = 1000

    public struct App: Sendable, Equatable {
        public var appleItemId: UInt64
        /// The installed (updates) or wanted (restore) version; nil for "the latest".
        public var appleVersionId: UInt64?

        public init(appleItemId: UInt64, appleVersionId: UInt64?) {
            self.appleItemId = appleItemId
            self.appleVersionId = appleVersionId
        }
    }

    public var apps: [App]
    public var platform: Platform
    public var osVersion: OSVersion

    /// Why a body was refused: `tooMany` is a 413, everything else a 400.
    public enum Problem: Error, Equatable {
        case malformed(String)
        case tooMany(Int)
    }

    public static func parse(_ data: Data) -> Result<AppsRequest, Problem> {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return .failure(.malformed("The body must be a JSON object."))
        }
        guard let list = object["apps"] as? [Any] else { return .failure(.malformed("apps must be an array.")) }
        guard list.count <= maxApps else { return .failure(.tooMany(list.count)) }
        guard let platformText = object["platform"] as? String, let platform = Platform(rawValue: platformText) else {
            return .failure(.malformed("platform must be a platform name such as iOS."))
        }
        guard let osText = object["osVersion"] as? String, let osVersion = OSVersion(osText) else {
            return .failure(.malformed("osVersion must be a version such as 17.4."))
        }
        var apps: [App] = []
        for (index, value) in list.enumerated() {
            guard let entry = value as? [String: Any] else { return .failure(.malformed("apps[\(index)] must be an object.")) }
            guard let item = entry["appleItemId"].flatMap(AppleID.from(json:)), !(entry["appleItemId"] is Bool) else {
                return .failure(.malformed("apps[\(index)].appleItemId must be a decimal identifier."))
            }
            let rawVersion = entry["appleVersionId"] ?? entry["appleVersionID"]
            var version: UInt64?
            if let rawVersion, !(rawVersion is NSNull) {
                guard let parsed = AppleID.from(json: rawVersion), !(rawVersion is Bool) else {
                    return .failure(.malformed("apps[\(index)].appleVersionId must be a decimal identifier."))
                }
                version = parsed == 0 ? nil : parsed
            }
            apps.append(App(appleItemId: item, appleVersionId: version))
        }
        return .success(AppsRequest(apps: apps, platform: platform, osVersion: osVersion))
    }
}
