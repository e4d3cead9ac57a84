import Crypto
import SoukCore

/// Checks a variant's size and SHA-256 chunk digests (manifest `variantDetails`) as its bytes go by,
/// holding one chunk's hash state and never the file: a multi-gigabyte variant costs no memory.
/// Bytes come from the network as they arrive and, after a resumed download, from the part of the
/// file already on disk.
struct VariantVerifier {
    let expectedSize: Int64?
    let digests: PackageManifest.ChunkDigests?
    private(set) var count: Int64 = 0
    private var hasher = SHA256()
    private var inChunk = 0
    private var index = 0

    init(_ variant: PackageManifest.Asset) {
        expectedSize = variant.expectedSize
        digests = variant.chunkDigests
    }

    static func mismatch(_ message: String) -> DeviceError {
        DeviceError(.invalidAlternativeDistributionPackageSignature, message)
    }

    /// The next bytes of the file.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(DeviceError) {
        count += Int64(bytes.count)
        if let expectedSize, count > expectedSize {
            throw Self.mismatch("the variant is longer than the manifest's \(expectedSize) bytes")
        }
        guard let digests else { return }
        var offset = 0
        while offset < bytes.count {
            let take = min(digests.chunkSize - inChunk, bytes.count - offset)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]))
            inChunk += take
            offset += take
            if inChunk == digests.chunkSize { try closeChunk() }
        }
    }

    private mutating func closeChunk() throws(DeviceError) {
        guard let digests else { return }
        guard index < digests.digests.count else {
            throw Self.mismatch("the variant has more chunks than the manifest's \(digests.digests.count) digests")
        }
        guard Array(hasher.finalize()) == digests.digests[index] else {
            throw Self.mismatch("chunk \(index) of the variant does not match its SHA-256 digest")
        }
        index += 1
        hasher = SHA256()
        inChunk = 0
    }

    /// The end of the file: the size, the last partial chunk and the number of chunks.
    mutating func finish() throws(DeviceError) {
        if let expectedSize, count != expectedSize {
            throw Self.mismatch("the variant is \(count) bytes, the manifest says \(expectedSize)")
        }
        guard let digests else { return }
        if inChunk > 0 { try closeChunk() }
        guard index == digests.digests.count else {
            throw Self.mismatch("the variant has \(index) chunks, the manifest lists \(digests.digests.count) digests")
        }
    }
}
