import Foundation
import PinwatchCore

/// One sample of an instant query's answer: its labels (metric name under
/// `__name__`), made safe for a terminal, and its value.
package struct VectorSample: Hashable, Sendable {
    package var labels: VectorLabels
    package var value: Double

    package init(labels: VectorLabels, value: Double) {
        self.labels = labels
        self.value = value
    }

    package init(labels: [String: String], value: Double) {
        self.init(labels: VectorLabels(labels), value: value)
    }

    package var name: String { labels["__name__"] ?? "" }
}

/// Why an answer could not be read; said in the dashboard's banner.
package struct FleetQueryProblem: Error, Hashable, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = TerminalText.sanitize(description)
    }
}

/// An answer's samples, and how many it held that were not read: not the
/// documented shape, or a value no pinwatch series has.
package struct VectorAnswer: Hashable, Sendable {
    package var samples: [VectorSample]
    package var skipped: Int

    package init(samples: [VectorSample], skipped: Int = 0) {
        self.samples = samples
        self.skipped = skipped
    }
}

/// The JSON of Prometheus' `/api/v1/query` (`{"status":"success","data":
/// {"resultType":"vector","result":[{"metric":{…},"value":[t,"1"]}]}}`).
/// What comes back is untrusted: every label is sanitised and bounded, a
/// sample that is not the documented shape is skipped, not trusted.
package enum PrometheusVector {
    /// More than any label pinwatch writes (a reason sentence, a subject).
    package static let maximumLabelLength = 1_024
    package static let maximumLabels = 32
    /// Every value pinwatch exports is a flag, a count, a number of
    /// seconds or a moment between the years 1 and 9999 (a certificate's
    /// `notAfter` may be 9999-12-31): anything past that, NaN or an
    /// infinity is not one of its series, and would only reach the
    /// arithmetic of ages and days left.
    package static let valueRange: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    package static func parse(_ body: Data) -> Result<VectorAnswer, FleetQueryProblem> {
        let names = LabelNames()
        guard let root = try? VectorJSONReader.read(body, labelName: names.bounded) else {
            return .failure(FleetQueryProblem("the answer is not a JSON object (is the URL a Prometheus server?)"))
        }
        guard root.status == "success" else {
            let kind = root.errorType ?? "error"
            let message = root.error ?? "no message"
            return .failure(FleetQueryProblem("Prometheus refused the query (\(kind)): \(bounded(message))"))
        }
        guard root.resultType == "vector", let samples = root.samples else {
            return .failure(FleetQueryProblem("the answer is not an instant vector"))
        }
        return .success(VectorAnswer(samples: samples, skipped: root.skipped))
    }

    /// Sanitised for a terminal, at most `maximumLabelLength` characters.
    static func bounded(_ text: String) -> String {
        let clean = TerminalText.sanitize(text)
        // No more bytes than the bound: no more characters either, and
        // counting characters is the slow part.
        guard clean.utf8.count > maximumLabelLength, clean.count > maximumLabelLength else { return clean }
        return String(clean.prefix(maximumLabelLength - 1)) + "…"
    }
}

/// Label names as `bounded` makes them, each distinct name made once per
/// answer: every sample repeats them, so the samples share their storage
/// (values were tried too; a fleet's values are mostly its own, and
/// looking them up cost more than it saved).
private final class LabelNames {
    /// Distinct names remembered; past it (a server inventing names) each
    /// is made anew, so the table stays small.
    private static let remembered = 256
    private var made: [String: String] = [:]

    func bounded(_ raw: String) -> String {
        if let text = made[raw] { return text }
        let text = PrometheusVector.bounded(raw)
        if made.count < Self.remembered { made[raw] = text }
        return text
    }
}
