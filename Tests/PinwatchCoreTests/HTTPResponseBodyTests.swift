import XCTest

@testable import PinwatchCore

final class HTTPResponseBodyTests: XCTestCase {
    private func parse(_ text: String, limit: Int = 1024) throws(HTTPResponseBody.ResponseError) -> String {
        String(decoding: try HTTPResponseBody.parse(Array(text.utf8), maximumBodyBytes: limit), as: UTF8.self)
    }

    private func failure(_ text: String, limit: Int = 1024) -> String? {
        do {
            _ = try parse(text, limit: limit)
            return nil
        } catch {
            return error.description
        }
    }

    func testBodiesByLengthChunksOrEndOfStream() throws {
        XCTAssertEqual(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, and more"), "hello")
        XCTAssertEqual(try parse("HTTP/1.0 200 ok\r\nContent-type: text/plain\r\n\r\n{\"a\":1}"), "{\"a\":1}")
        XCTAssertEqual(
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n"), "{\"a\":1}")
    }

    func testStatusesOtherThan200AreErrors() {
        XCTAssertEqual(failure("HTTP/1.1 404 Not Found\r\n\r\n"), "HTTP 404 Not Found")
        XCTAssertEqual(
            failure("HTTP/1.1 301 Moved\r\nLocation: https://x/\r\n\r\n"), "HTTP 301 Moved (redirects are not followed: give the final URL)"
        )
        XCTAssertEqual(failure("HTTP/1.1 500 \u{1B}[31mboom\r\n\r\n"), "HTTP 500 \u{FFFD}[31mboom", "the server's words are sanitised")
    }

    func testMalformedAndOversizedResponses() {
        XCTAssertEqual(failure(""), "the server closed without answering")
        XCTAssertEqual(failure("SSH-2.0-OpenSSH\r\n\r\n"), "not an HTTP response")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"), "the body ended after 5 of 10 bytes")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"), "the list is larger than 0 MiB")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), "Content-Length \"-1\" is not a length")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), "malformed chunked body")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc"), "the chunked body ended early")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "x", count: 2000)), "the list is larger than 0 MiB")
        XCTAssertEqual(failure("HTTP/1.1 200 OK\r\nX: " + String(repeating: "y", count: 20_000)), "response head larger than 16 KiB")
    }

    func testCompletenessLetsTheReaderStopEarly() {
        XCTAssertFalse(HTTPResponseBody.isComplete(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel".utf8), maximumBodyBytes: 100))
        XCTAssertTrue(HTTPResponseBody.isComplete(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8), maximumBodyBytes: 100))
        XCTAssertFalse(
            HTTPResponseBody.isComplete(Array("HTTP/1.0 200 ok\r\n\r\nbody".utf8), maximumBodyBytes: 100), "to the end of stream")
        XCTAssertTrue(HTTPResponseBody.isComplete(Array(repeating: 0x41, count: 20_000), maximumBodyBytes: 100), "no head in 16 KiB")
    }

    func testAHeaderIsReadFromTheHeadInAnyCase() throws {
        let response = Array("HTTP/1.1 200 OK\r\nx-cert-pinning-SIGNATURE:  MEUCIQ==  \r\nContent-Length: 2\r\n\r\n{}".utf8)
        let parsed = try HTTPResponseBody.parse(response, maximumBodyBytes: 100, header: "X-Cert-Pinning-Signature")
        XCTAssertEqual(parsed.body, Array("{}".utf8))
        XCTAssertEqual(parsed.header, "MEUCIQ==")
        XCTAssertNil(try HTTPResponseBody.parse(response, maximumBodyBytes: 100, header: "X-Other").header)
    }
}
