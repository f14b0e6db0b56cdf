/// The next-chain fields of a host (and of each client release) in JSON v1.
enum NextChainsJSON {
    /// `next_chains`: one object per chain a renewal may land on.
    static func chains(_ nextChains: NextChains?) -> JSONValue {
        .array(
            (nextChains?.chains ?? []).map { chain in
                .object([
                    ("scenario", .string(chain.scenario.rawValue)),
                    ("via", .string(chain.via)),
                    ("survives", survives(chain.survives)),
                    ("carried_by", .array(chain.carriedBy.map { .string($0.text) })),
                    ("reason", chain.reason.map(JSONValue.string) ?? .null),
                ])
            })
    }

    /// `survives`: every scenario, null where it cannot be judged.
    static func summary(_ nextChains: NextChains?) -> JSONValue {
        summary { nextChains?.survives($0) }
    }

    /// A fleet row's: what its series say of each scenario.
    static func summary(_ survival: SeriesFacts.Survival) -> JSONValue {
        summary { survival[$0] }
    }

    private static func summary(_ survives: (NextChainScenario) -> Bool?) -> JSONValue {
        .object(NextChainScenario.allCases.map { ($0.rawValue, Self.survives(survives($0))) })
    }

    /// `recommended_pins`: the fewest pins that make every known scenario survive.
    static func recommended(_ nextChains: NextChains?) -> JSONValue {
        .array(
            (nextChains?.recommended ?? []).map { pin in
                .object([("pin", .string(pin.pin)), ("subject", .string(pin.subject))])
            })
    }

    private static func survives(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
}
