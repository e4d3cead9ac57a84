import Foundation

/// Where the sign-in form sends a person back to (`/signin?return=…`): only a path on this site,
/// so the parameter cannot be used to send someone elsewhere after signing in.
enum SignInReturn {
    /// `value` when it is a local path (`/…`, not `//…` or `/\…`, no control characters), else nil.
    static func path(_ value: String?) -> String? {
        guard let value, value.count <= 2048, value.hasPrefix("/"), !value.hasPrefix("//"), !value.hasPrefix("/\\"),
              !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return value
    }

    /// The sign-in page's URL that returns to `path?query` once signed in.
    static func signInURL(returningTo path: String, query: String?) -> String {
        let target = query.map { path + "?" + $0 } ?? path
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return "/signin?return=" + (target.addingPercentEncoding(withAllowedCharacters: allowed) ?? "/")
    }
}
