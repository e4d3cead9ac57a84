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
        data.withUnsafeBytes { parse(bytes: $0) }
    }

    public static func parse(bytes: UnsafeRawBufferPointer) -> Result<AppsRequest, Problem> {
        if let fast = AppsRequestFastPath.parse(bytes) { return .success(fast) }
        return parseGeneral(bytes)
    }

    /// The general parser (any valid JSON, any member order, errors worded); also the reference the
    /// fast path is tested against.
    public static func parseGeneral(_ bytes: UnsafeRawBufferPointer) -> Result<AppsRequest, Problem> {
        guard let object = try? JSONValue.parse(bytes), object.isObject else {
            return .failure(.malformed("The body must be a JSON object."))
        }
        guard let list = object["apps"]?.arrayValue else { return .failure(.malformed("apps must be an array.")) }
        guard list.count <= maxApps else { return .failure(.tooMany(list.count)) }
        guard let platformText = object["platform"]?.stringValue, let platform = Platform(rawValue: platformText) else {
            return .failure(.malformed("platform must be a platform name such as iOS."))
        }
        guard let osText = object["osVersion"]?.stringValue, let osVersion = OSVersion(osText) else {
            return .failure(.malformed("osVersion must be a version such as 17.4."))
        }
        var apps: [App] = []
        apps.reserveCapacity(list.count)
        for (index, entry) in list.enumerated() {
            guard entry.isObject else { return .failure(.malformed("apps[\(index)] must be an object.")) }
            guard let item = entry["appleItemId"].flatMap(AppleID.from(json:)) else {
                return .failure(.malformed("apps[\(index)].appleItemId must be a decimal identifier."))
            }
            var version: UInt64?
            switch entry["appleVersionId"] ?? entry["appleVersionID"] {
            case nil, .null?:
                break
            case let raw?:
                guard let parsed = AppleID.from(json: raw) else {
                    return .failure(.malformed("apps[\(index)].appleVersionId must be a decimal identifier."))
                }
                version = parsed == 0 ? nil : parsed
            }
            apps.append(App(appleItemId: item, appleVersionId: version))
        }
        return .success(AppsRequest(apps: apps, platform: platform, osVersion: osVersion))
    }
}
