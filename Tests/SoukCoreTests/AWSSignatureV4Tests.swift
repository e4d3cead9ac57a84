import Foundation
import SoukCore
import Testing

/// Signatures checked against botocore 1.43 (AWS's Python signer: `S3SigV4Auth`,
/// `S3SigV4QueryAuth`) for the same keys, times and requests.
@Suite struct AWSSignatureV4Tests {
    static let date = Date(timeIntervalSince1970: 1_795_780_800)  // 2026-11-27T12:00:00Z
    static func signer(_ region: String) -> AWSSignatureV4 {
        AWSSignatureV4(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", region: region)
    }

    @Test func headerSignaturesMatchBotocore() {
        let put = Self.signer("eu-west-1").signedHeaders(
            method: "PUT", url: URL(string: "http://127.0.0.1:9000/souk-blobs/sha256/ab/abcdef")!,
            payloadSHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", date: Self.date)  // SHA-256 of "hello"
        #expect(put["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261127/eu-west-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=0586c5be78a7b8b511bc532e85cd12d7e364a280ce29b7c01a1e0564bf2ed5b0")
        #expect(put["x-amz-date"] == "20261127T120000Z")
        let get = Self.signer("us-east-1").signedHeaders(
            method: "GET", url: URL(string: "https://s3.example.com/souk-blobs/sha256/ab/abcdef")!,
            payloadSHA256: AWSSignatureV4.emptyPayloadSHA256, date: Self.date)
        #expect(get["authorization"]?.hasSuffix("Signature=4502b8ab2052d11f46037b30ff6c6638333c3489eda64b06cfca351f3a42cfa9") == true)
    }

    @Test func presignedURLsMatchBotocore() {
        let url = Self.signer("eu-west-1").presignedGET(
            url: URL(string: "http://127.0.0.1:9000/souk-blobs/sha256/ab/abcdef")!, expires: 900,
            query: ["response-content-type": "application/zip", "response-content-disposition": "attachment; filename=\"a b.zip\""],
            date: Self.date)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
        #expect(query.first { $0.name == "X-Amz-Signature" }?.value == "45408acb9b7fc15e73386c616247d225b9803a2fc7ed1c8fb699e7c8190092bb")
        #expect(query.first { $0.name == "X-Amz-Expires" }?.value == "900")
        #expect(query.first { $0.name == "response-content-disposition" }?.value == "attachment; filename=\"a b.zip\"")
        #expect(url.absoluteString.hasPrefix("http://127.0.0.1:9000/souk-blobs/sha256/ab/abcdef?"))
    }
}
