import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// systemd's readiness protocol (sd_notify(3)): a unit with `Type=notify` starts a process with
/// `NOTIFY_SOCKET` naming a datagram socket, and counts the service as started only when the
/// process sends `READY=1` there. `systemctl start` and `restart` then return when Souk is ready,
/// and units ordered `After=` it wait as long. Without `NOTIFY_SOCKET` (not under systemd) nothing
/// is sent.
enum SystemdNotify {
    /// Sends `READY=1` (and a status line) when systemd asked for it; never throws (a notification
    /// that cannot be sent is systemd's to time out on).
    static func ready(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    static func send(_ message: String, socketPath: String? = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"]) {
        #if canImport(Glibc)
        guard let socketPath, !socketPath.isEmpty else { return }
        // "@name" is a socket in the abstract namespace: its address starts with a NUL byte.
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        _ = message.withCString { text in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    sendto(descriptor, text, strlen(text), 0, address, length)
                }
            }
        }
        #endif
    }
}
