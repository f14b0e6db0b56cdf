import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchFleet

/// The instant-query answer decoded into typed values: every entry that is
/// not the documented shape is skipped and counted, the others read, the
/// labels sanitised and bounded by characters, not bytes.
final class PrometheusVectorTests: XCTestCase {
    private func parse(_ result: String) throws -> VectorAnswer {
        try PrometheusVector.parse(Data(#"{"status":"success","data":{"resultType":"vector","result":[\#(result)]}}"#.utf8)).get()
    }

    func testEntriesOfAnotherShapeAreSkippedAndTheRestRead() throws {
        let labels = (0..<33).map { #""l\#($0)":"v""# }.joined(separator: ",")
        let answer = try parse(
            [
                #"{"metric":{"__name__":"a","host":"x.test"},"value":[1.5,"2"]}"#,
                // The timestamp is never read: any value stands there.
                #"{"metric":{"__name__":"b"},"value":[{"t":[1]},"3"]}"#,
                // A label that is not a string is left out, the sample kept.
                #"{"metric":{"__name__":"c","port":443,"tags":["x"]},"value":[1,"4"]}"#,
                #"42"#, #""text""#, #"null"#, #"[]"#,
                #"{"metric":{"__name__":"d"},"value":[1,"5",6]}"#,
                #"{"metric":{"__name__":"e"},"value":[1,5]}"#,
                #"{"metric":{"__name__":"f"},"value":"1"}"#,
                #"{"metric":["__name__","g"],"value":[1,"1"]}"#,
                #"{"value":[1,"1"]}"#,
                #"{"metric":{\#(labels)},"value":[1,"1"]}"#,
                #"{"metric":{"__name__":"h"},"value":[1,"1e400"]}"#,
            ].joined(separator: ","))
        XCTAssertEqual(answer.samples.map(\.name), ["a", "b", "c"])
        XCTAssertEqual(answer.samples.map(\.value), [2, 3, 4])
        XCTAssertEqual(answer.samples[2].labels, ["__name__": "c"])
        XCTAssertEqual(answer.skipped, 11)
    }

    func testLabelsAreBoundedByCharactersNotBytes() throws {
        let whole = String(repeating: "é", count: PrometheusVector.maximumLabelLength)
        let long = String(repeating: "é", count: PrometheusVector.maximumLabelLength + 1)
        let answer = try parse(
            #"{"metric":{"whole":"\#(whole)","long":"\#(long)","bell\u0007":"a\u001b[2Jb"},"value":[1,"1"]}"#)
        let labels = try XCTUnwrap(answer.samples.first?.labels)
        XCTAssertEqual(labels["whole"], whole, "1,024 characters in 2,048 bytes are within the bound")
        XCTAssertEqual(labels["long"]?.count, PrometheusVector.maximumLabelLength)
        XCTAssertEqual(labels["long"]?.last, "…")
        XCTAssertEqual(labels["bell\u{FFFD}"], "a\u{FFFD}[2Jb")
    }

    /// The same text in many samples is one string, sanitised once; a
    /// label that differs is its own.
    func testRepeatedLabelsReadAlike() throws {
        let entries = (0..<5_000).map { #"{"metric":{"job":"pinwatch","instance":"serve:1","host":"h\#($0).test"},"value":[1,"1"]}"# }
        let answer = try parse(entries.joined(separator: ","))
        XCTAssertEqual(answer.samples.count, 5_000)
        XCTAssertEqual(Set(answer.samples.map { $0.labels["job"] ?? "" }), ["pinwatch"])
        XCTAssertEqual(Set(answer.samples.map { $0.labels["host"] ?? "" }).count, 5_000)
        XCTAssertEqual(answer.samples.last?.labels["host"], "h4999.test")
    }

    /// A sample's names and values are its neighbour's only where their
    /// bytes are the same: labels in another order, a longer or shorter
    /// value, an escaped form of the same text and text that needs
    /// sanitising each read as they would be alone.
    func testNeighboursTextIsTakenOnlyForTheSameBytes() throws {
        // Written raw in the second sample, escaped in the first.
        let override = "\u{202E}"
        let entries = [
            #"{"metric":{"a":"ab","b":"x\u202ey","c":"\tq"},"value":[1,"1"]}"#,
            #"{"metric":{"a":"abc","b":"x\#(override)y","c":"\tq"},"value":[1,"2"]}"#,
            #"{"metric":{"b":"ab","a":"v\"q","c":"é"},"value":[1,"3"]}"#,
            #"{"metric":{"b":"ab","a":"v\"q","c":"é","d":"ab"},"value":[1,"4"]}"#,
            #"{"metric":{"a":"a","b":"ab"},"value":[1,"5"]}"#,
            #"{"metric":{"a\u0041":"x","b":1,"c":"ab"},"value":[1,"6"]}"#,
            #"{"metric":{"aA":"x","b":"ab","c":"ab"},"value":[1,"7"]}"#,
        ]
        let answer = try parse(entries.joined(separator: ","))
        let expected: [[String: String]] = [
            ["a": "ab", "b": "x\u{FFFD}y", "c": " q"],
            ["a": "abc", "b": "x\u{FFFD}y", "c": " q"],
            ["b": "ab", "a": "v\"q", "c": "é"],
            ["b": "ab", "a": "v\"q", "c": "é", "d": "ab"],
            ["a": "a", "b": "ab"],
            ["aA": "x", "c": "ab"],
            ["aA": "x", "b": "ab", "c": "ab"],
        ]
        XCTAssertEqual(answer.samples.map(\.labels.dictionary), expected)
        XCTAssertEqual(answer.samples.map(\.value), [1, 2, 3, 4, 5, 6, 7])
        // Each read alone gives the same labels.
        for (entry, labels) in zip(entries, expected) { XCTAssertEqual(try parse(entry).samples.first?.labels.dictionary, labels) }
    }

    /// A sample's names are its neighbour's array while they are the same,
    /// its own where they differ: more, fewer, others or a name twice (its
    /// last value kept, as a table keeps it).
    func testNamesAreSharedOnlyWhileTheyAreTheSame() throws {
        let answer = try parse(
            [
                #"{"metric":{"a":"1","b":"2"},"value":[1,"1"]}"#,
                #"{"metric":{"a":"3","b":"4"},"value":[1,"1"]}"#,
                #"{"metric":{"a":"5","b":"6","c":"7"},"value":[1,"1"]}"#,
                #"{"metric":{"a":"8"},"value":[1,"1"]}"#,
                #"{"metric":{"a":"9","a":"10","b":"11"},"value":[1,"1"]}"#,
                #"{"metric":{"b":"12","a":"13"},"value":[1,"1"]}"#,
                #"{"metric":{},"value":[1,"1"]}"#,
            ].joined(separator: ","))
        let labels = answer.samples.map(\.labels)
        XCTAssertEqual(
            labels.map(\.dictionary),
            [
                ["a": "1", "b": "2"], ["a": "3", "b": "4"], ["a": "5", "b": "6", "c": "7"], ["a": "8"], ["a": "10", "b": "11"],
                ["b": "12", "a": "13"], [:],
            ])
        XCTAssertEqual(labels.map(\.count), [2, 2, 3, 1, 2, 2, 0])
        XCTAssertEqual(labels[4]["a"], "10")
        XCTAssertNil(labels[3]["b"])
        XCTAssertEqual(labels[5], ["a": "13", "b": "12"], "equal in any order")
        XCTAssertEqual(Set([labels[5], ["a": "13", "b": "12"]]).count, 1)
    }
}
