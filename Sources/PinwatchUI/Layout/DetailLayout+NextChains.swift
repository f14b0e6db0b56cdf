import PinwatchCore

extension DetailLayout {
    /// The chains a renewal may land on, whether the pins survive each,
    /// and the pins that would make them all survive (DESIGN §10).
    static func appendNextChains(of report: HostReport, to lines: inout [StyledLine]) {
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

    private static func chainLine(_ chain: NextChain) -> StyledLine {
        let symbolStyle: Style
        switch chain.survives {
        case true?: symbolStyle = Style(.ok)
        case false?: symbolStyle = Style(.warn, bold: true)
        case nil: symbolStyle = Style(.dim)
        }
        var via = chain.via
        if let from = chain.from { via += " from \(DateText.day(from))" }
        var line: StyledLine = [
            Span("   " + chain.scenario.change.padding(toLength: 23, withPad: " ", startingAt: 0), Style(.dim)),
            Span(NextChainText.symbol(chain.survives) + " ", symbolStyle),
            Span(via.padding(toLength: max(via.count, 24), withPad: " ", startingAt: 0)),
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
