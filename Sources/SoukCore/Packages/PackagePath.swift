/// Rules for paths inside a package, shared by import and hosting.
public enum PackagePath {
    /// The two files every package has besides its assets.
    public static let manifest = "manifest.json"
    public static let signature = "signature"

    /// True for a plain relative path that cannot leave the package: no leading `/`, no `.` or `..`
    /// component, no empty component, no backslash, no percent-escape, no control characters.
    public static func isSafeRelative(_ path: String) -> Bool {
        guard !path.isEmpty, path.utf8.count <= 1024, !path.hasPrefix("/") else { return false }
        for byte in path.utf8 where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "%") {
            return false
        }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty || component == "." || component == ".." { return false }
        }
        return true
    }

    /// The media type a hosted package file is served with.
    public static func contentType(for path: String) -> String {
        if path == manifest || path.hasSuffix(".json") { return "application/json" }
        return "application/octet-stream"
    }
}
