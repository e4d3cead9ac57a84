import Foundation
import HTTPTypes
import Hummingbird

extension Response {
    /// A JSON answer (sorted keys, unescaped slashes). `no-store` answers also carry `Pragma: no-cache`,
    /// as RFC 6749 asks of token responses.
    static func json(_ object: Any, status: HTTPResponse.Status = .ok, cacheControl: String) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return json(bytes: data, status: status, cacheControl: cacheControl)
    }

    /// A JSON answer whose bytes are already written (`JSONWriter` on hot paths).
    static func json(bytes: some Sequence<UInt8>, status: HTTPResponse.Status = .ok, cacheControl: String) -> Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: cacheControl]
        if cacheControl == "no-store" { headers[pragma] = "no-cache" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private static let pragma = HTTPField.Name("Pragma")!
}

/// How Souk writes its DTOs: sorted keys (equal answers are equal bytes), slashes as they are.
enum WireJSON {
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // DTOs are flat structs of strings, numbers and arrays of them: encoding cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
