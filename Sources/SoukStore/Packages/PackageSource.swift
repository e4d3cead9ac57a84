import Foundation
import SoukCore
import ZIPFoundation

/// A package laid out as a folder on disk: either the folder the operator named, or a zip
/// extracted into Souk's work area (removed again by `cleanUp()`).
struct PackageSource: Sendable {
    /// The folder that holds `manifest.json`.
    let root: String
    private let extractedTo: String?

    static let maxZipEntries = 100_000

    /// Opens a directory as it is, or extracts a zip (recognised by its signature, not its name).
    static func open(_ path: String, workArea: String) throws -> PackageSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PackageError(path, "no such file or directory")
        }
        if isDirectory.boolValue {
            return PackageSource(root: path, extractedTo: nil)
        }
        guard isZip(path) else {
            throw PackageError(path, "is neither a package folder nor a zip archive")
        }
        let destination = WorkOwner.name(prefix: "import-", in: workArea)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        do {
            try extract(zip: path, into: destination)
            return PackageSource(root: try locateManifestFolder(destination), extractedTo: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
    }

    /// Removes what `open` extracted.
    func cleanUp() {
        if let extractedTo { try? FileManager.default.removeItem(atPath: extractedTo) }
    }

    /// The absolute path of `relative` inside the package, after checking that every component on
    /// the way is a real folder and the last one a regular file (no symlink can lead outside).
    func regularFile(_ relative: String, field: String) throws -> String {
        guard PackagePath.isSafeRelative(relative) else {
            throw PackageError(field, "\(relative) is not a path inside the package")
        }
        var current = root
        let components = relative.split(separator: "/")
        for (index, component) in components.enumerated() {
            current += "/" + component
            let type = (try? FileManager.default.attributesOfItem(atPath: current))?[.type] as? FileAttributeType
            let isLast = index == components.count - 1
            switch type {
            case .none:
                throw PackageError(relative, "is missing from the package")
            case .some(.typeSymbolicLink):
                throw PackageError(relative, "is a symbolic link; packages may only contain regular files")
            case .some(.typeDirectory) where !isLast:
                continue
            case .some(.typeRegular) where isLast:
                continue
            default:
                throw PackageError(relative, "is not a regular file")
            }
        }
        return current
    }

    private static func isZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic == Data([0x50, 0x4B, 0x03, 0x04]) || magic == Data([0x50, 0x4B, 0x05, 0x06])
    }

    private static func extract(zip path: String, into destination: String) throws {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw PackageError(path, "is not a readable zip archive")
        }
        var count = 0
        for entry in archive {
            count += 1
            guard count <= maxZipEntries else { throw PackageError(path, "has more than \(maxZipEntries) entries") }
            var name = entry.path
            if entry.type == .directory, name.hasSuffix("/") { name.removeLast() }
            if name.hasPrefix("__MACOSX/") || name == "__MACOSX" { continue }  // Finder's resource forks
            guard PackagePath.isSafeRelative(name) else {
                throw PackageError(entry.path, "zip entry would land outside the package")
            }
            switch entry.type {
            case .symlink:
                throw PackageError(entry.path, "is a symbolic link; packages may only contain regular files")
            case .directory:
                try FileManager.default.createDirectory(atPath: "\(destination)/\(name)", withIntermediateDirectories: true)
            case .file:
                do {
                    _ = try archive.extract(entry, to: URL(fileURLWithPath: "\(destination)/\(name)"))
                } catch {
                    if BlobStore.isNearlyFull(destination) {
                        throw PackageError(entry.path, "cannot be extracted: the disk holding \(destination) is full. Nothing was imported; free some space and import again")
                    }
                    throw PackageError(entry.path, "cannot be extracted: the zip archive is damaged")
                }
            }
        }
    }

    /// Zips made by Finder put everything under one folder: accept that folder as the package.
    private static func locateManifestFolder(_ extracted: String) throws -> String {
        if FileManager.default.fileExists(atPath: "\(extracted)/\(PackagePath.manifest)") { return extracted }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: extracted)) ?? []).filter { $0 != "__MACOSX" }
        if entries.count == 1, FileManager.default.fileExists(atPath: "\(extracted)/\(entries[0])/\(PackagePath.manifest)") {
            return "\(extracted)/\(entries[0])"
        }
        return extracted
    }
}
