/// What a `GET`/`HEAD` for a stored file should answer, given its validators and the request's
/// `If-None-Match`, `If-Modified-Since`, `Range` and `If-Range` headers (RFC 9110 §13–14).
public enum FileResponsePlan: Sendable, Equatable {
    /// 304: the client's copy is current.
    case notModified
    /// 200 with the whole file.
    case full
    /// 206 with these bytes (inclusive bounds).
    case partial(ClosedRange<Int64>)
    /// 416: the range starts past the end of the file.
    case unsatisfiable
}

/// The request headers that decide a file response.
public struct FileRequestConditions: Sendable {
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?
    public var range: String?
    public var ifRange: String?

    public init(ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, range: String? = nil, ifRange: String? = nil) {
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.range = range
        self.ifRange = ifRange
    }

    /// Decides the response for a file of `size` bytes with strong `etag` (quoted) and `lastModified`
    /// (whole seconds since 1970).
    public func plan(size: Int64, etag: String, lastModified: Int64) -> FileResponsePlan {
        if let ifNoneMatch {
            if Self.etagList(ifNoneMatch, matches: etag, weak: true) { return .notModified }
        } else if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince), lastModified <= since {
            return .notModified
        }
        guard let range else { return .full }
        if let ifRange {
            // If-Range holds one validator: a strong ETag must match exactly, a date must equal Last-Modified.
            let trimmed = ifRange.trimmingSpaces
            if trimmed.hasPrefix("\"") || trimmed.hasPrefix("W/") {
                if trimmed != etag { return .full }
            } else if HTTPDate.parse(trimmed) != lastModified {
                return .full
            }
        }
        switch ByteRange.parse(range) {
        case nil:
            return .full  // syntax we do not serve (other units, several ranges): ignore the header
        case .some(let byteRange):
            guard let bounds = byteRange.resolve(size: size) else { return .unsatisfiable }
            return .partial(bounds)
        }
    }

    /// True when a comma-separated `If-None-Match` list contains `*` or `etag`.
    static func etagList(_ list: String, matches etag: String, weak: Bool) -> Bool {
        let opaque = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for item in list.split(separator: ",") {
            var tag = item.trimmingSpaces
            if tag == "*" { return true }
            if weak, tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            if tag == opaque { return true }
        }
        return false
    }
}

/// One byte range from a `Range: bytes=…` header.
public enum ByteRange: Sendable, Equatable {
    /// `bytes=first-` or `bytes=first-last`.
    case from(Int64, through: Int64?)
    /// `bytes=-count`: the last `count` bytes.
    case suffix(Int64)

    /// Parses a single `bytes=` range; `nil` for other units, several ranges or bad syntax.
    public static func parse(_ header: String) -> ByteRange? {
        let value = header.trimmingSpaces
        guard value.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst(6).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingSpaces
        let last = spec[spec.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            guard let count = Self.number(last) else { return nil }
            return .suffix(count)
        }
        guard let start = Self.number(first) else { return nil }
        if last.isEmpty { return .from(start, through: nil) }
        guard let end = Self.number(last), end >= start else { return nil }
        return .from(start, through: end)
    }

    /// The inclusive bounds inside a file of `size` bytes, or `nil` when unsatisfiable.
    public func resolve(size: Int64) -> ClosedRange<Int64>? {
        guard size > 0 else { return nil }
        switch self {
        case .from(let start, let end):
            guard start < size else { return nil }
            return start...min(end ?? (size - 1), size - 1)
        case .suffix(let count):
            guard count > 0 else { return nil }
            return max(0, size - count)...(size - 1)
        }
    }

    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
