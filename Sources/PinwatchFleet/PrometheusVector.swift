import Foundation
import PinwatchCore

/// One sample of an instant query's answer: its labels (metric name under
/// `__name__`), made safe for a terminal, and its value.
package struct VectorSample: Hashable, Sendable {
    package var labels: [String: String]
    package var value: Double

    package init(labels: [String: String], value: Double) {
        self.labels = labels
        self.value = value
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
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return .failure(FleetQueryProblem("the answer is not a JSON object (is the URL a Prometheus server?)"))
        }
        guard root["status"] as? String == "success" else {
            let kind = root["errorType"] as? String ?? "error"
            let message = root["error"] as? String ?? "no message"
            return .failure(FleetQueryProblem("Prometheus refused the query (\(kind)): \(bounded(message))"))
        }
        guard let data = root["data"] as? [String: Any], data["resultType"] as? String == "vector",
            let result = data["result"] as? [Any]
        else {
            return .failure(FleetQueryProblem("the answer is not an instant vector"))
        }
        var samples: [VectorSample] = []
        var skipped = 0
        samples.reserveCapacity(result.count)
        for item in result {
            guard let entry = item as? [String: Any], let metric = entry["metric"] as? [String: Any], metric.count <= maximumLabels,
                let pair = entry["value"] as? [Any], pair.count == 2, let text = pair[1] as? String, let value = Double(text),
                valueRange.contains(value)
            else {
                skipped += 1
                continue
            }
            var labels: [String: String] = [:]
            for (key, raw) in metric {
                guard let string = raw as? String else { continue }
                labels[bounded(key)] = bounded(string)
            }
            samples.append(VectorSample(labels: labels, value: value))
        }
        return .success(VectorAnswer(samples: samples, skipped: skipped))
    }

    /// Sanitised for a terminal, at most `maximumLabelLength` characters.
    static func bounded(_ text: String) -> String {
        let clean = TerminalText.sanitize(text)
        return clean.count > maximumLabelLength ? String(clean.prefix(maximumLabelLength - 1)) + "…" : clean
    }
}
