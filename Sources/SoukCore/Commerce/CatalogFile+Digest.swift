import Crypto
import Foundation

extension CatalogFile {
    /// The SHA-256 (lowercase hex) of a catalog text as it was reviewed: the console's apply step
    /// applies a text only when its digest is the reviewed one. Line breaks count as LF, because a
    /// browser sends every line break of a form field as CRLF (the HTML standard's form submission).
    public static func reviewDigest(of text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return SHA256.hash(data: Data(normalized.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
