import ArgumentParser
import Foundation
import SoukCore
import SoukStore

/// `souk audit export`: the audit log as JSON lines.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "The audit log of console and CLI changes.",
                                                    subcommands: [Export.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the audit log as JSON lines (at, actor, action, target, before, after), oldest first.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only entries at or after this RFC 3339 date-time (or date).") var since: String?
        @Option(help: "Write to this file instead of standard output.") var out: String?

        func validate() throws {
            if let since, Self.parse(since) == nil {
                throw ValidationError("--since must be an RFC 3339 date-time such as 2027-01-01T00:00:00Z or a date; got '\(since)'")
            }
        }

        static func parse(_ text: String) -> Date? {
            RFC3339.parse(text) ?? (text.count == 10 ? RFC3339.parse(text + "T00:00:00Z") : nil)
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let entries = try await AuditLog(database: runtime.database).export(since: since.flatMap(Self.parse))
                let text = entries.map { $0.exportLine + "\n" }.joined()
                if let out {
                    try text.write(toFile: out, atomically: true, encoding: .utf8)
                } else {
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
            }
        }
    }
}
