import Foundation
import SoukCore
import Testing

/// `ContentVersion`, `ContentInfo` and `ContentPackageLayout`: the pure rules of hosted content packages.
@Suite struct ContentPackageTests {
    typealias Entry = ContentPackageLayout.Entry

    static func plist(_ dictionary: [String: Any], format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: dictionary, format: format, options: 0)
    }

    @Test func versionsAreIntegersSeparatedByDotsWithoutLeadingZeros() {
        for good in ["1", "0", "1.0.2", "10.20.30", "999999999", "1.2.3.4.5.6.7.8"] {
            #expect(ContentVersion(good)?.text == good, "\(good)")
        }
        for bad in ["", ".", "1.", ".1", "1..2", "v1", "1.a", "-1", "+1", "01", "1.02", " 1", "1 ", "1,2", "1234567890", "1.2.3.4.5.6.7.8.9", "١"] {
            #expect(ContentVersion(bad) == nil, "\(bad)")
        }
    }

    @Test func versionsOrderNumberByNumberAndTrailingZerosDoNotCount() throws {
        let texts = ["1.10", "1.9", "2", "1", "1.0.1", "0.9", "10"]
        let sorted = texts.compactMap(ContentVersion.init).sorted().map(\.text)
        #expect(sorted == ["0.9", "1", "1.0.1", "1.9", "1.10", "2", "10"])
        #expect(ContentVersion("1") == ContentVersion("1.0.0"))
        #expect(try #require(ContentVersion("1.0")).hashValue == (try #require(ContentVersion("1"))).hashValue)
        #expect(ContentVersion("1.0.1")! > ContentVersion("1")!)
        #expect(!(ContentVersion("1.0")! < ContentVersion("1")!))
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func contentInfoReadsXMLAndBinaryPlists(format: PropertyListSerialization.PropertyListFormat) throws {
        let data = try Self.plist(["ContentVersion": "1.0.2", "IAPProductIdentifier": "com.example.reader.book1", "Other": 3], format: format)
        let info = try ContentInfo.parse(data).get()
        #expect(info.contentVersion.text == "1.0.2")
        #expect(info.productIdentifier == "com.example.reader.book1")
    }

    @Test func contentInfoNamesTheKeyAtFault() throws {
        func problem(_ data: Data) -> String? {
            if case .failure(let error) = ContentInfo.parse(data) { return error.description }
            return nil
        }
        #expect(problem(Data("not a plist".utf8))?.contains("is not a property list") == true)
        #expect(problem(try Self.plist(["IAPProductIdentifier": "a"], format: .xml))?.contains("ContentVersion: is missing") == true)
        #expect(problem(try Self.plist(["ContentVersion": "1.x", "IAPProductIdentifier": "a"], format: .xml))?
            .contains("ContentVersion: must be a string of integers") == true)
        #expect(problem(try Self.plist(["ContentVersion": 1, "IAPProductIdentifier": "a"], format: .binary))?
            .contains("ContentVersion") == true)
        #expect(problem(try Self.plist(["ContentVersion": "1"], format: .xml))?.contains("IAPProductIdentifier") == true)
        #expect(problem(try Self.plist(["ContentVersion": "1", "IAPProductIdentifier": "a b"], format: .xml))?
            .contains("IAPProductIdentifier") == true)
        let array = try PropertyListSerialization.data(fromPropertyList: ["1"], format: .xml, options: 0)
        #expect(problem(array)?.contains("dictionary at its root") == true)
    }

    @Test func aValidListingIsSortedWithEveryFolderOnTheWay() throws {
        let plan = try ContentPackageLayout.plan([
            Entry(path: "Contents/b/deep/file.bin", kind: .file(size: 10)),
            Entry(path: "ContentInfo.plist", kind: .file(size: 200)),
            Entry(path: "Contents/a.txt", kind: .file(size: 5)),
            Entry(path: "Contents/empty/", kind: .directory),
        ]).get()
        #expect(plan.root == "")
        #expect(plan.totalBytes == 215)
        #expect(plan.entries.map(\.path) == ["ContentInfo.plist", "Contents", "Contents/a.txt", "Contents/b", "Contents/b/deep",
                                             "Contents/b/deep/file.bin", "Contents/empty"])
        #expect(plan.entries[1].kind == .directory)
    }

    @Test func aPackageWrappedInOneFolderAndFindersResourceForksAreAccepted() throws {
        let plan = try ContentPackageLayout.plan([
            Entry(path: "Book1/", kind: .directory),
            Entry(path: "Book1/ContentInfo.plist", kind: .file(size: 10)),
            Entry(path: "Book1/Contents/page.txt", kind: .file(size: 3)),
            Entry(path: "__MACOSX/Book1/._ContentInfo.plist", kind: .file(size: 4)),
        ]).get()
        #expect(plan.root == "Book1")
        #expect(plan.entries.map(\.path) == ["ContentInfo.plist", "Contents", "Contents/page.txt"])
    }

    @Test func anythingOutsideContentInfoAndContentsIsRefused() {
        let cases: [([Entry], String)] = [
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "README", kind: .file(size: 1))], "README"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Resources/", kind: .directory)], "Resources"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Contents", kind: .file(size: 1))], "Contents"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Contents/../x", kind: .file(size: 1))], "Contents/../x"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "/etc/passwd", kind: .file(size: 1))], "/etc/passwd"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "../evil", kind: .file(size: 1))], "../evil"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Contents\\..\\x", kind: .file(size: 1))], "Contents\\..\\x"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Contents/link", kind: .other)], "symbolic link"),
            ([Entry(path: "Contents/a", kind: .file(size: 1))], "ContentInfo.plist: is missing"),
            ([Entry(path: "ContentInfo.plist", kind: .directory)], "ContentInfo.plist"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Contents/a", kind: .file(size: 1)),
              Entry(path: "Contents/a/b", kind: .file(size: 1))], "both a file and a folder"),
            ([Entry(path: "ContentInfo.plist", kind: .file(size: 1)), Entry(path: "Contents/a", kind: .file(size: 1)),
              Entry(path: "Contents/a", kind: .file(size: 1))], "the same path twice"),
        ]
        for (listing, expected) in cases {
            guard case .failure(let error) = ContentPackageLayout.plan(listing) else {
                Issue.record("accepted \(listing.map(\.path))")
                continue
            }
            #expect(error.description.contains(expected), "\(error) should mention \(expected)")
        }
    }

    @Test func sizeAndEntryLimitsAreEnforced() {
        let limits = ContentPackageLayout.Limits(maxTotalBytes: 100, maxEntries: 3, maxInfoBytes: 10)
        let info = Entry(path: "ContentInfo.plist", kind: .file(size: 10))
        #expect((try? ContentPackageLayout.plan([info, Entry(path: "Contents/a", kind: .file(size: 90))], limits: limits).get()) != nil)
        guard case .failure(let tooBig) = ContentPackageLayout.plan([info, Entry(path: "Contents/a", kind: .file(size: 91))], limits: limits),
              case .failure(let bigInfo) = ContentPackageLayout.plan([Entry(path: "ContentInfo.plist", kind: .file(size: 11))], limits: limits),
              case .failure(let tooMany) = ContentPackageLayout.plan([info] + (0..<3).map { Entry(path: "Contents/\($0)", kind: .file(size: 1)) },
                                                                     limits: limits) else {
            Issue.record("a limit was not enforced")
            return
        }
        #expect(tooBig.description.contains("more than 100 bytes"))
        #expect(bigInfo.description.contains("larger than 10 bytes"))
        #expect(tooMany.description.contains("more than 3 files"))
        #expect(ContentPackageLayout.Limits.standard.maxTotalBytes == 4 << 30)
    }
}
