import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime

/// A `ClientTransport` over URLSession whose every request waits `timeout` seconds.
///
/// OpenAPIURLSession's transport builds each `URLRequest` with the default one-minute
/// `timeoutInterval`, and on Linux (swift-corelibs-foundation) a request's own interval wins over
/// the session's `timeoutIntervalForRequest`, so a session setting alone cannot lengthen it. A test
/// server sharing two loaded cores with the rest of the suite can take longer than a minute
/// (docs/development.md, "Test layout").
struct PatientTransport: ClientTransport {
    let session: URLSession
    let timeout: TimeInterval

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        self.session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        guard let path = request.path, let url = URL(string: baseURL.absoluteString + path) else {
            throw URLError(.badURL)
        }
        var urlRequest = URLRequest(url: url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.canonicalName)
        }
        if let body {
            urlRequest.httpBody = try await Data(collecting: body, upTo: 64 * 1024 * 1024)
        }
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let name = name as? String, let value = value as? String, let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let status = HTTPResponse.Status(code: http.statusCode)
        return (HTTPResponse(status: status, headerFields: fields), data.isEmpty ? nil : HTTPBody(data))
    }
}
