import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The simulated device, kept in `<state dir>/device.json`: its identity, one OAuth `client_id`
/// per website domain and account (as iOS makes them), tokens, installed apps, licenses, the
/// install-verification nonces it has seen, and when it last checked for updates.
public struct DeviceState: Codable, Sendable {
    public var deviceId: String
    public var platform: String
    public var osVersion: String
    public var model: String
    public var clients: [String: String] = [:]
    public var tokens: [String: Tokens] = [:]
    public var installs: [InstalledApp] = []
    public var licenses: [License] = []
    public var seenNonces: [String] = []
    public var lastUpdateCheck: [String: Date] = [:]

    public struct Tokens: Codable, Sendable {
        public var accessToken: String
        public var refreshToken: String?
        public var expiresAt: Date?
    }

    public struct InstalledApp: Codable, Sendable, Equatable {
        public var appleItemId: UInt64
        public var appleVersionId: UInt64
        public var bundleId: String
        public var shortVersionString: String
        public var packageURL: String
        /// The website domain (package host) the app came from; restores and updates go there.
        public var domain: String
        public var account: String?
        public var installedAt: Date
        /// `dtype` of the install verification token the install used (`download` or `redownload`;
        /// an update's is `download`, spec §4); nil in states saved before it was recorded.
        public var dtype: String?
        /// For an install from a link: `dtype` of the link's own token (the one the website minted).
        public var linkDtype: String?
    }

    public struct License: Codable, Sendable, Equatable {
        public var licenseId: UInt64
        public var appleItemId: UInt64
        public var domain: String
        public var expiresAt: Date?
    }

    /// The key of per-domain, per-account maps.
    public static func key(domain: String, account: String?) -> String {
        "\(domain)|\((account ?? "").lowercased())"
    }

    /// The device's `client_id` for a domain and account, made on first use (a UUID, as iOS does).
    public mutating func clientId(domain: String, account: String?) -> String {
        let key = Self.key(domain: domain, account: account)
        if let existing = clients[key] { return existing }
        let made = UUID().uuidString
        clients[key] = made
        return made
    }

    public mutating func install(_ app: InstalledApp) {
        installs.removeAll { $0.appleItemId == app.appleItemId }
        installs.append(app)
    }
}

/// Loads and saves the state atomically (a temporary file renamed into place).
public struct DeviceStore: Sendable {
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    var path: String { folder + "/device.json" }
    public var downloads: String { folder + "/downloads" }
    public var apps: String { folder + "/apps" }

    public func load(platform: String?, osVersion: String?, model: String?) throws -> DeviceState {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var state: DeviceState
        if let data = FileManager.default.contents(atPath: path) {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            state = try decoder.decode(DeviceState.self, from: data)
        } else {
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
            state = DeviceState(deviceId: bytes.map { String(format: "%02x", $0) }.joined(), platform: "iOS", osVersion: "17.4",
                                model: "iPhone15,2")
        }
        if let platform { state.platform = platform }
        if let osVersion { state.osVersion = osVersion }
        if let model { state.model = model }
        return state
    }

    public func save(_ state: DeviceState) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let temporary = path + ".\(UUID().uuidString).tmp"
        try encoder.encode(state).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw DeviceError(.protocolViolation, "cannot save the device state at \(path) (errno \(errno))")
        }
    }
}
