import Yams

/// The `HostKey` rows whose reading is longer than a few lines.
enum HostKeyReading {
    static func host(_ parser: inout ConfigDocumentParser, _ node: Node, _ draft: inout HostEntryDraft, _: inout Config) -> Bool {
        guard let written = parser.string(node, key: draft.key("host")) else { return false }
        if let url = HostURLHint.problem(written) {
            parser.report(node, key: draft.key("host"), url)
            return false
        }
        // `host: a.test:8443` and `[2001:db8::1]:8443` mean what they say,
        // read as the command line and `/probe` read them (a file_sd
        // target is one of these too).
        let endpoint: HostPort
        do {
            endpoint = try HostPort(parsing: written)
        } catch {
            parser.report(node, key: draft.key("host"), error.description)
            return false
        }
        draft.written = written
        draft.entry.host = endpoint.host
        draft.entry.serverName = endpoint.host
        if endpoint.portWasWritten {
            draft.writtenPort = endpoint.port
            draft.entry.port = endpoint.port
        }
        return true
    }

    static func port(_ parser: inout ConfigDocumentParser, _ node: Node, _ draft: inout HostEntryDraft, _: inout Config) -> Bool {
        guard let port = parser.integer(node, key: draft.key("port"), in: 1...65_535) else { return false }
        draft.entry.port = port
        if let writtenPort = draft.writtenPort, writtenPort != port {
            parser.report(node, key: draft.key("port"), "\(port) contradicts the port in host: \(EchoedInput.quoted(draft.written))")
            return false
        }
        return true
    }

    static func pinset(_ parser: inout ConfigDocumentParser, _ node: Node, _ draft: inout HostEntryDraft, _ defaults: inout Config)
        -> Bool
    {
        guard let setName = parser.string(node, key: draft.key("pinset")) else { return true }
        guard let set = defaults.pinsets[setName] else {
            parser.report(
                node, key: draft.key("pinset"),
                "\(draft.owner): unknown pinset \(EchoedInput.quoted(setName))" + DidYouMean.hint(setName, among: defaults.pinsets.keys))
            return true
        }
        draft.entry.pinsetName = setName
        draft.entry.pins = draft.entry.pins.merged(with: set)
        draft.entry.provider = defaults.pinsetProviders[setName]
        draft.entry.labels = defaults.pinsetLabels[setName] ?? [:]
        draft.entry.runbook = defaults.pinsetRunbooks[setName]
        return true
    }

    static func addresses(_ parser: inout ConfigDocumentParser, _ node: Node, _ draft: inout HostEntryDraft, _: inout Config) -> Bool {
        guard let selection = parser.addressSelection(node, key: draft.key("addresses")) else { return false }
        draft.entry.addresses = selection
        if selection == .all, draft.entry.connectAddress != nil {
            parser.report(node, key: draft.key("addresses"), "all cannot apply to a host with connect: (it names the one address to dial)")
            return false
        }
        return true
    }

    static func starttls(_ parser: inout ConfigDocumentParser, _ node: Node, _ draft: inout HostEntryDraft, _: inout Config) -> Bool {
        guard let written = parser.string(node, key: draft.key("starttls")) else { return false }
        guard let dialogue = StartTLSProtocol(rawValue: written) else {
            let names = StartTLSProtocol.allCases.map(\.rawValue)
            parser.report(
                node, key: draft.key("starttls"),
                "unknown protocol \(EchoedInput.quoted(written)) (one of: \(names.joined(separator: ", ")))"
                    + DidYouMean.hint(written, among: names))
            return false
        }
        if let service = StartTLSProtocol.implicitTLSPorts[draft.entry.port] {
            // Said before any probe: the probe could only time out.
            parser.report(
                node, key: draft.key("starttls"),
                "port \(draft.entry.port) speaks TLS at once (\(service)), with no \(dialogue.displayName) greeting to answer: "
                    + "remove starttls:, or name the STARTTLS port (\(ConfigDocumentParser.startTLSPortHint(dialogue)))")
            return false
        }
        draft.entry.starttls = dialogue
        return true
    }
}
