/// The update check's hot path: reads the shape devices actually send straight from the bytes,
/// with no intermediate JSON tree and no strings for the ids. Anything it does not expect — an
/// escape, an unknown member, a `null`, a duplicate key, a number with a sign or a fraction, too
/// many apps — makes it return nil, and `AppsRequest.parse` falls back to the general parser, which
/// also words the errors. So the fast path never accepts what the general one refuses, and where
/// both accept they agree (tests compare them).
struct AppsRequestFastPath {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) -> AppsRequest? {
        var parser = AppsRequestFastPath(bytes)
        return parser.request()
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after whitespace) or fails.
    mutating func expect(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A string without escapes or control characters, as a byte range (ASCII only).
    mutating func plainString() -> Range<Int>? {
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != text.utf8Start[offset] { return false }
        return true
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Decimal digits (1–20) that fit in UInt64.
    func digits(_ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty, range.count <= 20 else { return nil }
        var value: UInt64 = 0
        for position in range {
            let byte = bytes[position]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// An id: a string of digits, or a plain integer literal (no sign, fraction, exponent or leading zero).
    mutating func identifier() -> UInt64? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            guard let range = plainString() else { return nil }
            return digits(range)
        }
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        let range = start..<index
        if range.count > 1, bytes[start] == UInt8(ascii: "0") { return nil }
        // What follows a number must end it: anything else (".", "e", letters) goes to the general parser.
        if index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): break
            default: return nil
            }
        }
        return digits(range)
    }

    mutating func app() -> AppsRequest.App? {
        guard expect(UInt8(ascii: "{")) else { return nil }
        var item: UInt64?
        var version: UInt64?
        var sawVersion = false
        if expect(UInt8(ascii: "}")) { return nil }
        repeat {
            guard let key = plainString(), expect(UInt8(ascii: ":")) else { return nil }
            if equals(key, "appleItemId") {
                guard item == nil, let value = identifier() else { return nil }
                item = value
            } else if equals(key, "appleVersionId") || equals(key, "appleVersionID") {
                guard !sawVersion, let value = identifier() else { return nil }
                sawVersion = true
                version = value
            } else {
                return nil
            }
        } while expect(UInt8(ascii: ","))
        guard expect(UInt8(ascii: "}")), let item else { return nil }
        return AppsRequest.App(appleItemId: item, appleVersionId: version == 0 ? nil : version)
    }

    mutating func request() -> AppsRequest? {
        guard expect(UInt8(ascii: "{")) else { return nil }
        var apps: [AppsRequest.App]?
        var platform: Platform?
        var osVersion: OSVersion?
        repeat {
            guard let key = plainString(), expect(UInt8(ascii: ":")) else { return nil }
            if equals(key, "apps") {
                guard apps == nil, expect(UInt8(ascii: "[")) else { return nil }
                var list: [AppsRequest.App] = []
                list.reserveCapacity(32)
                if !expect(UInt8(ascii: "]")) {
                    repeat {
                        guard list.count < AppsRequest.maxApps, let app = app() else { return nil }
                        list.append(app)
                    } while expect(UInt8(ascii: ","))
                    guard expect(UInt8(ascii: "]")) else { return nil }
                }
                apps = list
            } else if equals(key, "platform") {
                guard platform == nil, let range = plainString(), let value = Platform(rawValue: string(range)) else { return nil }
                platform = value
            } else if equals(key, "osVersion") {
                guard osVersion == nil, let range = plainString(), let value = OSVersion(string(range)) else { return nil }
                osVersion = value
            } else {
                return nil
            }
        } while expect(UInt8(ascii: ","))
        guard expect(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard index == bytes.count, let apps, let platform, let osVersion else { return nil }
        return AppsRequest(apps: apps, platform: platform, osVersion: osVersion)
    }
}
