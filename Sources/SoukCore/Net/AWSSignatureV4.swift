import Crypto
import Foundation

/// AWS Signature Version 4 for S3-compatible object stores, path-style: the `Authorization` header
/// of a request, and presigned `GET` URLs (query-string authentication).
///
/// Written from AWS's "Signature Version 4 signing process" and "Authenticating Requests: Using
/// Query Parameters"; the tests hold values computed by botocore, AWS's own Python signer.
public struct AWSSignatureV4: Sendable {
    public var accessKeyId: String
    public var secretAccessKey: String
    public var region: String
    public var service: String

    public static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public init(accessKeyId: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// The headers to add to a request to `url` (`host` is taken from it): `x-amz-date`,
    /// `x-amz-content-sha256` and `Authorization`. `headers` are further headers to sign (lower-case names).
    public func signedHeaders(method: String, url: URL, payloadSHA256: String, headers: [String: String] = [:],
                              date: Date) -> [String: String] {
        let (amzDate, day) = Self.timestamps(date)
        var signed = headers.reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value.trimmingCharacters(in: .whitespaces) }
        signed["host"] = Self.host(url)
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadSHA256
        let names = signed.keys.sorted()
        let canonical = [method, Self.canonicalPath(url), Self.canonicalQuery(url),
                         names.map { "\($0):\(signed[$0]!)\n" }.joined(), names.joined(separator: ";"), payloadSHA256]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let signature = sign(canonical, amzDate: amzDate, day: day, scope: scope)
        var result = ["x-amz-date": amzDate, "x-amz-content-sha256": payloadSHA256]
        result["authorization"] = "AWS4-HMAC-SHA256 Credential=\(accessKeyId)/\(scope), SignedHeaders=\(names.joined(separator: ";")), Signature=\(signature)"
        return result
    }

    /// A presigned `GET` of `url`, valid for `expires` seconds (1 to 604800) from `date`. Only
    /// `host` is signed, so any client may follow it; `query` adds parameters such as
    /// `response-content-type` (signed too, so they cannot be changed).
    public func presignedGET(url: URL, expires: Int, query: [String: String] = [:], date: Date) -> URL {
        let (amzDate, day) = Self.timestamps(date)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        var parameters = query
        parameters["X-Amz-Algorithm"] = "AWS4-HMAC-SHA256"
        parameters["X-Amz-Credential"] = "\(accessKeyId)/\(scope)"
        parameters["X-Amz-Date"] = amzDate
        parameters["X-Amz-Expires"] = String(expires)
        parameters["X-Amz-SignedHeaders"] = "host"
        let canonicalQuery = Self.encodedQuery(parameters)
        let canonical = ["GET", Self.canonicalPath(url), canonicalQuery, "host:\(Self.host(url))\n", "host", "UNSIGNED-PAYLOAD"]
            .joined(separator: "\n")
        let signature = sign(canonical, amzDate: amzDate, day: day, scope: scope)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = canonicalQuery + "&X-Amz-Signature=" + signature
        return components.url!
    }

    func sign(_ canonicalRequest: String, amzDate: String, day: String, scope: String) -> String {
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }

    static func timestamps(_ date: Date) -> (String, String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let amzDate = formatter.string(from: date)
        return (amzDate, String(amzDate.prefix(8)))
    }

    /// `host[:port]`, the port only when it is not the scheme's default.
    static func host(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let isDefault = (url.scheme == "https" && port == 443) || (url.scheme == "http" && port == 80)
        return isDefault ? host : "\(host):\(port)"
    }

    /// The path with each segment URI-encoded once (S3 does not double-encode).
    static func canonicalPath(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? "/"
        guard !path.isEmpty else { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { uriEncode(String($0)) }.joined(separator: "/")
    }

    static func canonicalQuery(_ url: URL) -> String {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return encodedQuery(Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 }))
    }

    static func encodedQuery(_ parameters: [String: String]) -> String {
        parameters.map { (uriEncode($0.key), uriEncode($0.value)) }.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// RFC 3986 unreserved characters stay; every other byte becomes `%XX` (upper case).
    static func uriEncode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(UnicodeScalar(byte))
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
