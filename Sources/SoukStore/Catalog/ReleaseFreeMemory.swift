#if canImport(Glibc)
import Glibc
#endif

/// Hands the memory freed after a full load back to the system. Reading a whole catalog makes
/// rows, strings and dictionaries that are freed once the index is built, but glibc's allocator
/// keeps freed pages inside its heaps, so the process would stay as large as at its peak.
/// `malloc_trim` (glibc's `malloc.h`, which the `Glibc` module does not bring in) is looked up
/// by name; elsewhere this does nothing.
enum ReleaseFreeMemory {
    static func now() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        // RTLD_DEFAULT: the symbol as the process's libraries define it.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
