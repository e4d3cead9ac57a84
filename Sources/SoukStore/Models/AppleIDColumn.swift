/// Apple identifiers are `UInt64`; SQLite and PostgreSQL only have signed 64-bit integers.
/// Columns hold the same 64 bits (`Int64(bitPattern:)`), so every value round-trips and equality
/// lookups work; never sort or compare them in SQL.
public enum AppleIDColumn {
    public static func store(_ id: UInt64) -> Int64 { Int64(bitPattern: id) }
    public static func load(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) }
}
