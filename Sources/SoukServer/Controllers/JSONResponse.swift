import Foundation
import HTTPTypes
import Hummingbird

extension Response {
    /// A JSON answer (sorted keys, unescaped slashes). `no-store` answers also carry `Pragma: no-cache`,
    /// as RFC 6749 asks of token responses.
    static func json(_ object: Any, status: HTTPResponse.Status = .ok, cacheControl: String) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: cacheControl]
        if cacheControl == "no-store" { headers[HTTPField.Name("Pragma")!] = "no-cache" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
