import Foundation

/// An IPv4 or IPv6 address as its bytes (4 or 16). IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`,
/// what a dual-stack socket reports for an IPv4 peer) are the IPv4 address, so one client has one
/// spelling. `description` is the canonical text (dotted quad; RFC 5952 for IPv6).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }

    /// Parses `192.0.2.1`, `2001:db8::1`, `::ffff:192.0.2.1`; an IPv6 zone (`fe80::1%eth0`) is dropped.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        if let v4 = Self.parseIPv4(Substring(text)) {
            bytes = v4
            return
        }
        let withoutZone = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let v6 = Self.parseIPv6(withoutZone) else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF {
            bytes = Array(v6[12..<16])
        } else {
            bytes = v6
        }
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        // RFC 5952 §4.2: the longest run of two or more zero groups (the first, on a tie) becomes "::".
        var best: (start: Int, length: Int) = (-1, 0)
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < groups.count, groups[end] == 0 { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            // Decimal only, no leading zeros (inet_aton's octal and hex forms are a known ambiguity).
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit),
                  part.count == 1 || part.first != "0", let value = UInt8(part) else { return nil }
            result.append(value)
        }
        return result
    }

    private static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseIPv4(piece) {
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), let value = UInt16(piece, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all: [UInt16]
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}

/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is a range of one.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the range (host bits cleared).
    public let address: IPAddress
    public let prefixLength: Int

    /// Parses `address[/prefix]`; host bits after the prefix are ignored (`192.168.1.7/24` is `192.168.1.0/24`).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        // An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
        let mappedOffset = address.isIPv4 && parts[0].contains(":") ? 96 : 0
        let bits = address.bytes.count * 8
        let prefix: Int
        if parts.count == 2 {
            guard (1...3).contains(parts[1].count), parts[1].allSatisfy(\.isASCIIDigit), let value = Int(parts[1]),
                  value >= mappedOffset, value - mappedOffset <= bits else { return nil }
            prefix = value - mappedOffset
        } else {
            prefix = bits
        }
        self.init(address: address, prefixLength: prefix)
    }

    /// The range of `prefixLength` bits around `address`.
    public init(address: IPAddress, prefixLength: Int) {
        self.prefixLength = prefixLength
        self.address = IPAddress(bytes: Self.mask(address.bytes, prefixLength))
    }

    public func contains(_ other: IPAddress) -> Bool {
        other.bytes.count == address.bytes.count && Self.mask(other.bytes, prefixLength) == address.bytes
    }

    public var description: String { "\(address)/\(prefixLength)" }

    private static func mask(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = min(8, max(0, prefix - index * 8))
            return keep == 8 ? byte : byte & ~(UInt8(0xFF) >> keep)
        }
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
