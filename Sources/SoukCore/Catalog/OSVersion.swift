/// An operating system version such as `17.4` or `17.10.1`, compared numerically part by part.
///
/// `17.10 > 17.4`, and missing parts count as zero (`17 == 17.0.0`).
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numeric parts, most significant first.
    public let parts: [UInt32]

    /// Parses `major[.minor[.patch…]]`; at most 4 parts of digits. Returns `nil` for anything else.
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(pieces.count) else { return nil }
        var parts: [UInt32] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.utf8.count <= 9,
                  piece.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let value = UInt32(piece) else { return nil }
            parts.append(value)
        }
        self.parts = parts
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        let count = max(lhs.parts.count, rhs.parts.count)
        for index in 0..<count {
            let left = index < lhs.parts.count ? lhs.parts[index] : 0
            let right = index < rhs.parts.count ? rhs.parts[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: OSVersion, rhs: OSVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        var trimmed = parts
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}
