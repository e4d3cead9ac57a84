import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which process a work file belongs to, so that what a killed process left behind is known at once.
///
/// Each process holds an exclusive `flock` on `<folder>/.owners/<token>.lock` for as long as it
/// lives, and names the staging files and work folders it makes in `<folder>` with its token
/// (`WorkOwner.name(prefix:in:)`: `import-<token>.<uuid>`). The kernel drops the lock when the
/// process dies, `kill -9` included, so `StaleFiles` removes a dead owner's files whatever their
/// age, and never a live one's. Locks are per machine: processes on other machines sharing the
/// folder over a network file system are not seen, and their files fall back to the age rule.
public enum WorkOwner {
    /// This process's token per folder, with the open lock file that keeps it alive.
    private static let tokens = Mutex<[String: String]>([:])

    /// A fresh name for a work file or folder in `folder`, carrying this process's token.
    public static func name(prefix: String = "", in folder: String) -> String {
        "\(folder)/\(prefix)\(token(in: folder)).\(UUID().uuidString.lowercased())"
    }

    /// This process's token in `folder`, claimed on first use (the lock file is created under a
    /// temporary name, locked, then renamed, so nobody ever sees it unlocked).
    static func token(in folder: String) -> String {
        tokens.withLock { tokens in
            if let token = tokens[folder] { return token }
            let token = "o" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let owners = folder + "/.owners"
            try? FileManager.default.createDirectory(atPath: owners, withIntermediateDirectories: true)
            let temporary = "\(owners)/.\(token).new", final = "\(owners)/\(token).lock"
            let descriptor = open(temporary, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
            if descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(temporary, final) == 0 {
                // The descriptor stays open until the process ends: that is the claim.
                tokens[folder] = token
            } else {
                // No claim could be made: names get a token no sweep reads as an owner ("n…"), so
                // the age rule covers them.
                if descriptor >= 0 { close(descriptor) }
                unlink(temporary)
                tokens[folder] = "n" + token.dropFirst()
            }
            return tokens[folder]!
        }
    }

    /// The owner token in an entry name made by `name(prefix:in:)`, or nil for other names.
    static func token(ofEntry name: String, prefix: String) -> String? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard rest.first == "o", let dot = rest.firstIndex(of: ".") else { return nil }
        let token = rest[..<dot]
        guard token.count > 1, token.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
        return String(token)
    }

    /// Whether the process that claimed `token` in `folder` is gone: its lock file is missing or
    /// nobody holds its lock.
    static func isDead(_ token: String, in folder: String) -> Bool {
        let path = "\(folder)/.owners/\(token).lock"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    /// Removes the lock files of owners that are gone (each sweep; a live owner's stays).
    static func forgetDeadOwners(in folder: String) {
        let owners = folder + "/.owners"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: owners)) ?? [] where name.hasSuffix(".lock") {
            let token = String(name.dropLast(".lock".count))
            if isDead(token, in: folder) { unlink("\(owners)/\(name)") }
        }
    }
}
