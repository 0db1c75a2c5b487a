import COpenSSL
import SystemSupport
import XCTest

final class OpenSSLErrorQueueTests: XCTestCase {
    /// Queues two errors the way a failed PEM read does.
    private func queueTwoErrors() {
        ERR_clear_error()
        let bio = BIO_new_mem_buf("not a certificate", -1)
        XCTAssertNil(PEM_read_bio_X509(bio, nil, nil, nil))  // queues "no start line"
        BIO_free(bio)
        XCTAssertNil(BIO_new_file("/nonexistent/mock-apns.pem", "r"))  // queues errors behind it
    }

    func testDrainLinesReadsEveryErrorOldestFirstAndEmptiesTheQueue() {
        queueTwoErrors()
        let lines = OpenSSLErrorQueue.drainLines()
        XCTAssertGreaterThanOrEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines[0].hasPrefix("error:"), lines[0])
        XCTAssertTrue(lines[0].contains("no start line"), lines[0])
        XCTAssertEqual(ERR_peek_error(), 0)
        XCTAssertEqual(OpenSSLErrorQueue.drainLines(), [])
    }

    func testDrainGivesTheOldestReasonAlone() {
        queueTwoErrors()
        XCTAssertEqual(OpenSSLErrorQueue.drain(), "no start line")
        XCTAssertEqual(ERR_peek_error(), 0)
        XCTAssertNil(OpenSSLErrorQueue.drain())
    }

    func testDescribe() {
        queueTwoErrors()
        let text = OpenSSLErrorQueue.describe("cannot load x.pem")
        XCTAssertTrue(text.hasPrefix("cannot load x.pem: error:"), text)
        XCTAssertTrue(text.hasSuffix("no start line"), text)
        XCTAssertEqual(OpenSSLErrorQueue.describe("nothing queued"), "nothing queued")
    }
}
