import Crypto
import Foundation

/// SHA-256 helpers shared by import, storage and hosting.
public enum Digest {
    /// Lower-case hex of `bytes`.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out = ""
        for byte in bytes {
            out += String(byte, radix: 16).leftPadded(to: 2)
        }
        return out
    }

    /// Decodes a SHA-256 digest written as 64 hex characters or as base64 (44 characters).
    public static func decodeSHA256(_ text: String) -> [UInt8]? {
        if text.utf8.count == 64 {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(32)
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            return bytes
        }
        guard let data = Data(base64Encoded: text), data.count == 32 else { return nil }
        return Array(data)
    }

    /// True for a 64-character lower-case hex string, the form blob names take.
    public static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
