import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1, 6 digits, 30-second
/// steps, one step of clock drift either way. Pure functions; `TOTPStore` keeps secrets and steps.
public enum TOTP {
    public static let digits = 6
    public static let period: TimeInterval = 30

    /// The time step of `date` (RFC 6238 §4.2: T = floor((now − T0) / X), T0 = 0).
    public static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / period).rounded(.down))
    }

    /// The HOTP value of `counter` (RFC 4226 §5.3: dynamic truncation), `digits` long with leading zeros.
    public static func code(secret: [UInt8], counter: Int64, digits: Int = digits) -> String {
        var big = UInt64(bitPattern: counter).bigEndian
        let message = withUnsafeBytes(of: &big) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - value.count)) + value
    }

    /// The code for `date`.
    public static func code(secret: [UInt8], at date: Date, digits: Int = digits) -> String {
        code(secret: secret, counter: step(at: date), digits: digits)
    }

    /// The time step (of the current one and its neighbours) whose code `candidate` is, if any.
    public static func matchingStep(secret: [UInt8], candidate: String, at date: Date) -> Int64? {
        let cleaned = candidate.filter { !$0.isWhitespace }
        guard cleaned.count == digits, cleaned.allSatisfy(\.isASCII), cleaned.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        var found: Int64?
        // Every candidate step is checked, so the time taken does not say which one matched.
        for step in [now - 1, now, now + 1] where constantTimeEqual(code(secret: secret, counter: step), cleaned) {
            found = found ?? step
        }
        return found
    }

    /// The `otpauth://` URI authenticator apps read (Google Authenticator's Key Uri Format).
    public static func provisioningURI(secret: [UInt8], issuer: String, account: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        let issuerPart = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? "Souk"
        let accountPart = account.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return "otpauth://totp/\(issuerPart):\(accountPart)?secret=\(Base32.encode(secret))&issuer=\(issuerPart)"
            + "&algorithm=SHA1&digits=\(digits)&period=\(Int(period))"
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// RFC 4648 base32 (upper case, no padding when encoding; padding and case ignored when decoding).
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") && character != UInt8(ascii: " ") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output
    }
}
