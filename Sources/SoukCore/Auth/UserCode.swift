/// The code a person types on `/activate` to approve a TV (RFC 8628 §6.1): 8 letters from 20
/// consonants (no vowels, so no words; no easily confused letters beyond that alphabet's own),
/// shown as `XXXX-XXXX`. 20^8 ≈ 2.6 × 10^10 values; wrong guesses are throttled like passwords.
public enum UserCode {
    /// RFC 8628 §6.1's example alphabet: the Latin consonants without Y.
    public static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    public static let length = 8

    /// A fresh code from the system's secure random generator, without its dash.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// `BCDFGHJK` → `BCDF-GHJK`.
    public static func display(_ code: String) -> String {
        let letters = Array(code)
        guard letters.count == length else { return code }
        return String(letters[0..<4]) + "-" + String(letters[4...])
    }

    /// What a person typed, as the code it names: case, spaces and dashes do not matter (RFC 8628
    /// §6.1). Nil when it cannot be a code (wrong length or a letter outside the alphabet).
    public static func normalize(_ typed: String) -> String? {
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " && $0 != "\t" }
        guard letters.count == length, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }
}
