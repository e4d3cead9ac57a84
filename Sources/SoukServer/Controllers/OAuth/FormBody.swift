import Foundation
import Hummingbird
import SoukCore

/// An `application/x-www-form-urlencoded` body as name → value, refusing repeated names
/// (RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once").
/// With `parameters`, only those names are refused when repeated; any other is a parameter the
/// endpoint does not read and is ignored, repeated or not (RFC 6749 §3.1: "The authorization
/// server MUST ignore unrecognized request parameters").
struct FormBody {
    let values: [String: String]

    static let maxBytes = 64 * 1024

    /// Reads and parses the body; a wrong media type, an oversized body or a repeated name (of
    /// `parameters`, when given) is an error.
    static func read(_ request: Request, context: some RequestContext, parameters: Set<String>? = nil) async throws -> Result<FormBody, OAuthError> {
        guard let type = request.headers[.contentType]?.lowercased(),
              type.hasPrefix("application/x-www-form-urlencoded") else {
            return .failure(OAuthError(.invalidRequest, "The body must be application/x-www-form-urlencoded."))
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBytes)
        } catch let problem as Problem {
            throw problem
        } catch {
            return .failure(OAuthError(.invalidRequest, "The body is too large."))
        }
        return parse(String(buffer: buffer), parameters: parameters)
    }

    static func parse(_ text: String, parameters: Set<String>? = nil) -> Result<FormBody, OAuthError> {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                return .failure(OAuthError(.invalidRequest, "The body is not valid form encoding."))
            }
            if values[name] != nil {
                guard let parameters, !parameters.contains(name) else {
                    return .failure(OAuthError(.invalidRequest, "The parameter \(name) is repeated."))
                }
                continue  // not one the endpoint reads
            }
            values[name] = value
        }
        return .success(FormBody(values: values))
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    subscript(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
