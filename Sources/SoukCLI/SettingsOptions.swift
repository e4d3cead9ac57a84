import ArgumentParser
import Foundation
import Logging
import SoukApp

/// The settings every command shares; each also reads `SOUK_*` and the config file (see `SoukConfig`).
package struct SettingsOptions: ParsableArguments {
    @Option(help: "Folder for the SQLite database, blobs and keys (SOUK_DATA_DIR, default ./souk-data).")
    var dataDir: String?

    @Option(help: "postgres:// URL; without it Souk uses SQLite in the data folder (SOUK_DATABASE_URL).")
    var databaseUrl: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (SOUK_LOG_LEVEL).")
    var logLevel: String?

    @Option(help: "A JSON config file (SOUK_CONFIG).")
    var config: String?

    package init() {}

    var flags: [String: String] {
        var flags: [String: String] = [:]
        flags["dataDir"] = dataDir
        flags["databaseUrl"] = databaseUrl
        flags["logLevel"] = logLevel
        return flags
    }

    /// Loads the settings without opening anything (commands that must not create keys or tables).
    func loadConfig() async throws -> SoukConfig {
        try await SoukConfig.load(flags: flags, environment: ProcessInfo.processInfo.environment, configFile: config)
    }

    /// Loads the settings and opens the runtime. Operator commands log only warnings unless asked.
    /// `adjust` changes the loaded settings first (`serve --demo` chooses its payment processor).
    package func openRuntime(extraFlags: [String: String] = [:], quiet: Bool = true, migrate: Bool = false,
                             adjust: (inout SoukConfig) -> Void = { _ in }) async throws -> SoukRuntime {
        let environment = ProcessInfo.processInfo.environment
        var config = try await SoukConfig.load(flags: flags.merging(extraFlags) { $1 }, environment: environment, configFile: config)
        adjust(&config)
        var logger = Logger(label: "souk")
        let explicit = logLevel != nil || environment["SOUK_LOG_LEVEL"] != nil
        logger.logLevel = quiet && !explicit ? .warning : config.logLevel
        return try await SoukRuntime.open(config, logger: logger, migrate: migrate)
    }
}

/// Runs `body` with an open runtime and closes it afterwards, whatever happens.
package func withRuntime<T>(_ settings: SettingsOptions, migrate: Bool = false,
                            _ body: (SoukRuntime) async throws -> T) async throws -> T {
    try await settings.openRuntime(migrate: migrate).closing(body)
}

/// A failure an operator can act on: printed as `Error: …`, exit code 1.
public struct CommandFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Parses an AppleItemID or AppleVersionID option.
func parseAppleID(_ text: String, option: String) throws -> UInt64 {
    guard let id = SoukCore.AppleID.parse(text) else {
        throw ValidationError("\(option) must be a decimal number (an AppleItemID or AppleVersionID), got '\(text)'")
    }
    return id
}

import SoukCore
