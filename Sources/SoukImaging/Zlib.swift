import Foundation
import ZIPFoundation

/// zlib streams (RFC 1950) around ZIPFoundation's raw deflate (RFC 1951): a 2-byte header, the
/// deflate data and the Adler-32 of the uncompressed bytes.
enum Zlib {
    static let bufferSize = 64 * 1024

    /// Compresses `data` into a zlib stream.
    static func compress(_ data: Data) throws -> Data {
        var output = Data([0x78, 0x9C])
        let source = Data(data)
        _ = try Data.compress(size: Int64(source.count), bufferSize: bufferSize, provider: { position, size in
            source.subdata(in: Int(position)..<(Int(position) + size))
        }, consumer: { output.append($0) })
        let adler = adler32(source)
        output.append(contentsOf: [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
        return output
    }

    /// Inflates a zlib stream that must produce exactly `expected` bytes; stops as soon as it would
    /// produce more (so the output never grows past `expected`).
    static func decompress(_ stream: Data, expected: Int) throws(PNGError) -> Data {
        let bytes = Data(stream)
        guard bytes.count >= 6 else { throw .corrupt("image data is truncated") }
        let cmf = bytes[0], flg = bytes[1]
        guard cmf & 0x0F == 8, cmf >> 4 <= 7, (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else {
            throw .corrupt("bad zlib header")
        }
        guard flg & 0x20 == 0 else { throw .unsupported("zlib preset dictionary") }
        let raw = bytes.subdata(in: 2..<(bytes.count - 4))
        var output = Data()
        output.reserveCapacity(expected)
        var overflow = false
        do {
            _ = try Data.decompress(size: Int64(raw.count), bufferSize: bufferSize, skipCRC32: true, provider: { position, size in
                // ZIPFoundation hands zlib a full buffer each time: pad past the end (the stream ends
                // before the padding), and stop a stream that wants more than there is.
                guard Int(position) < raw.count else { throw PNGError.corrupt("image data is truncated") }
                var chunk = raw.subdata(in: Int(position)..<min(raw.count, Int(position) + size))
                if chunk.count < size { chunk.append(Data(count: size - chunk.count)) }
                return chunk
            }, consumer: { chunk in
                guard output.count + chunk.count <= expected else {
                    overflow = true
                    throw PNGError.tooLarge("image data inflates past its \(expected) bytes")
                }
                output.append(chunk)
            })
        } catch let error as PNGError {
            throw error
        } catch {
            throw overflow ? .tooLarge("image data inflates past its \(expected) bytes") : .corrupt("image data does not inflate")
        }
        guard output.count == expected else { throw .corrupt("image data has \(output.count) bytes, expected \(expected)") }
        let trailer = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard adler32(output) == trailer else { throw .corrupt("Adler-32 of the image data does not match") }
        return output
    }

    /// Adler-32 (RFC 1950 §9).
    static func adler32(_ data: Data) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        data.withUnsafeBytes { buffer in
            var index = 0
            while index < buffer.count {
                // 5552 bytes is the most that can be summed before the 32-bit sums must be reduced.
                let end = min(index + 5552, buffer.count)
                while index < end {
                    a &+= UInt32(buffer[index])
                    b &+= a
                    index += 1
                }
                a %= 65521
                b %= 65521
            }
        }
        return b << 16 | a
    }
}
