import Foundation

extension AppMedia.Image {
    /// Decodes `png`, re-encodes it (dropping metadata chunks, so what is served is exactly what
    /// was checked) and stores it with a variant for each of `variantWidths` narrower than it.
    /// Throws `PNGError` for a file that is not an acceptable PNG.
    public static func store(png: Data, variantWidths: [Int], blobs: BlobStore) throws -> AppMedia.Image {
        let image = try PNG.decode(png)
        return try store(image, variantWidths: variantWidths, blobs: blobs)
    }

    /// Stores already decoded pixels as the original and its variants.
    public static func store(_ image: RGBAImage, variantWidths: [Int], blobs: BlobStore) throws -> AppMedia.Image {
        let original = try put(PNG.encode(image), blobs: blobs)
        var variants: [AppMedia.Variant] = []
        for width in Set(variantWidths).sorted() where width < image.width {
            let smaller = image.downscaled(toWidth: width)
            variants.append(AppMedia.Variant(width: smaller.width, height: smaller.height, sha256: try put(PNG.encode(smaller), blobs: blobs)))
        }
        return AppMedia.Image(sha256: original, width: image.width, height: image.height, variants: variants)
    }

    private static func put(_ data: Data, blobs: BlobStore) throws -> String {
        let staged = try blobs.stage(data: data)
        try blobs.commit(staged)
        return staged.sha256
    }
}
