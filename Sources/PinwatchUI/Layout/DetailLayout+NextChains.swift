import PinwatchCore

extension DetailLayout {
    /// The chains a renewal may land on, whether the pins survive each,
    /// and the pins that would make them all survive (DESIGN §10).
    static func appendNextChains(of report: HostReport, to lines: inout [StyledLine]) {
        if let series = report.series {
            appendExportedSurvival(series.survival, to: &lines)
            return
        }
        guard let nextChains = report.nextChains else { return }
        lines.append([])
        let family = nextChains.family.map { " (\($0))" } ?? " (CA not in the catalogue)"
        lines.append([Span(" next chains" + family, Style(.normal, bold: true))])
        for chain in nextChains.chains {
            lines.append(chainLine(chain))
        }
        if nextChains.survives(.caSwitch) == nil {
            lines.append([
                Span("   CA switch".padding(toLength: 26, withPad: " ", startingAt: 0), Style(.dim)),
                Span("? ", Style(.dim)), Span("no provider declared (provider: on the host or its pin set)", Style(.dim)),
            ])
        }
        guard !nextChains.recommended.isEmpty else { return }
        lines.append([Span(" recommended pins (add these and every known next chain survives)", Style(.normal, bold: true))])
        for pin in nextChains.recommended {
            lines.append([Span("   ca    ", Style(.dim)), Span(NextChainText.recommendation(pin))])
        }
    }

    /// A fleet row's: each scenario's verdict as its instance judged it;
    /// which chains those were stays on the instance.
    private static func appendExportedSurvival(_ survival: SeriesFacts.Survival, to lines: inout [StyledLine]) {
        guard !survival.isEmpty else { return }
        lines.append([])
        lines.append([Span(" next chains (the instance's verdicts; the chains are \(SeriesFacts.notExported))", Style(.normal, bold: true))]
        )
        for scenario in NextChainScenario.allCases {
            guard let survives = survival[scenario] else { continue }
            lines.append(scenarioSpans(scenario, survives: survives) + [Span(survives ? "pins survive" : "pinned clients break")])
        }
    }

    /// The scenario and its ✓, ✗ or ?, as every next-chain line starts.
    private static func scenarioSpans(_ scenario: NextChainScenario, survives: Bool?) -> StyledLine {
        let symbolStyle: Style
        switch survives {
        case true?: symbolStyle = Style(.ok)
        case false?: symbolStyle = Style(.warn, bold: true)
        case nil: symbolStyle = Style(.dim)
        }
        return [
            Span("   " + scenario.change.padding(toLength: 23, withPad: " ", startingAt: 0), Style(.dim)),
            Span(NextChainText.symbol(survives) + " ", symbolStyle),
        ]
    }

    private static func chainLine(_ chain: NextChain) -> StyledLine {
        var via = chain.via
        if let from = chain.from { via += " from \(DateText.day(from))" }
        var line =
            scenarioSpans(chain.scenario, survives: chain.survives) + [
                Span(via.padding(toLength: max(via.count, 24), withPad: " ", startingAt: 0))
            ]
        if let pin = chain.carriedBy.first {
            line.append(Span(" carried by \(pin.text)", Style(.dim)))
        } else if chain.survives == nil {
            line.append(Span(" unknown: the catalogue does not know this CA", Style(.dim)))
        } else {
            line.append(Span(" no pin matches it", Style(.warn)))
        }
        return line
    }
}
