import Foundation
import Logging
import SoukStore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A health check answers by its deadline even when the database server takes the connection and
/// never says a word (PostgreSQL stopped mid-restart): `/health` must not hang with it.
@Suite struct HealthPingTests {
    @Test func aServerThatNeverAnswersIsUnhealthyBeforeTheConnectionGivesUp() async throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let database = try SoukDatabase(location: .postgres(url: "postgres://souk:souk@127.0.0.1:\(silent.port)/souk?sslmode=disable"),
                                        logger: Logger(label: "souk.test"), poolTimeout: .seconds(60))
        #expect(await database.ping(deadline: .milliseconds(300)) == false)
        // The ping answered while its query's connection was still open and waiting: it did not wait for it.
        #expect(try silent.acceptedConnectionIsOpen())
        await database.shutdown()
    }
}

/// A TCP listener on the loopback that accepts one connection and never writes to it.
final class SilentServer: @unchecked Sendable {
    let listener: Int32
    let port: UInt16
    private var accepted: Int32 = -1

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 4) == 0 else {
            Glibc.close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Accepts the client's connection (it is queued by now) and tells whether the client still holds it open.
    func acceptedConnectionIsOpen() throws -> Bool {
        if accepted < 0 { accepted = accept(listener, nil, nil) }
        guard accepted >= 0 else { throw POSIXError(.ECONNABORTED) }
        // Reads what the client sent (its start-up message); then nothing more to read yet means it is
        // open, a read of 0 bytes that the client closed it.
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = recv(accepted, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if read > 0 { continue }
            return read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }

    func close() {
        if accepted >= 0 { Glibc.close(accepted) }
        Glibc.close(listener)
    }
}
