import Foundation
import PinwatchCore

/// `pinwatch.1` in mdoc: the commands and options from ArgumentParser's own
/// description of the command line, every configuration key from
/// `ConfigKeyGuide`, and the sections only a manual has (`ManualSections`).
/// `pinwatch --generate-manual` prints it; `scripts/man` and
/// `scripts/package` write it from there.
enum ManualPage {
    static func render(_ root: CommandHelp, date: Date) -> String {
        var lines = header(date: date)
        lines += ["", ".Sh SYNOPSIS"] + synopsis(root)
        lines += ["", ".Sh DESCRIPTION"] + ManualSections.description
        lines += ["", ".Sh COMMANDS", ".Bl -tag -width Ds"] + visibleSubcommands(root).flatMap { command($0, parent: nil) } + [".El"]
        lines += ["", ".Sh OPTIONS"] + ManualSections.options
        lines += ["", ".Sh CONFIGURATION"] + configuration()
        lines += ["", ".Sh ENVIRONMENT"] + ManualSections.environment
        lines += ["", ".Sh FILES"] + ManualSections.files
        lines += ["", ".Sh EXIT STATUS"] + ManualSections.exitStatus
        lines += ["", ".Sh EXAMPLES"] + ManualSections.examples
        lines += ["", ".Sh SEE ALSO"] + ManualSections.seeAlso
        // mdoc reads an empty line as a paragraph break and warns about it:
        // sections are kept apart in the source only.
        return finish(lines)
    }

    /// The page of a companion executable (`pinwatch-serve`) from its own
    /// help dump: its options, with pinwatch(1) for the rest.
    static func renderCompanion(_ tool: CommandHelp, name: String, date: Date) -> String {
        var lines = header(date: date, name: name, summary: tool.abstract ?? name)
        lines += [".Sh SYNOPSIS", ".Nm", ".Op Ar options"]
        lines += [".Sh DESCRIPTION"] + RoffText.paragraphs(tool.discussion ?? "")
        let arguments = visibleArguments(tool)
        lines += [".Sh OPTIONS", ".Bl -tag -width Ds"] + arguments.flatMap(argument) + [".El"]
        lines += [".Sh SEE ALSO", ".Xr pinwatch 1", "for the configuration, files, environment and exit status."]
        return finish(lines)
    }

    private static func finish(_ lines: [String]) -> String {
        let body = lines.filter { !$0.isEmpty }
        let fallbacks = RoffText.glyphFallbacks(for: body.joined(separator: "\n"))
        let comment = fallbacks.isEmpty ? [] : [".\\\" ASCII stand-ins for glyphs an ASCII device (LANG=C) cannot draw"]
        return (Array(body.prefix(3)) + comment + fallbacks + body.dropFirst(3)).joined(separator: "\n") + "\n"
    }

    private static func header(
        date: Date, name: String = "pinwatch",
        summary: String = "watch live TLS chains against the public-key pins your shipped clients carry"
    ) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
        ]
        let month = months[max(0, min(11, (parts.month ?? 1) - 1))]
        return [
            ".Dd \(month) \(parts.day ?? 1), \(parts.year ?? 1970)",
            ".Dt \(name.uppercased()) 1",
            ".Os",
            ".Sh NAME",
            ".Nm \(name)",
            ".Nd \(RoffText.line(summary.hasSuffix(".") ? String(summary.dropLast()) : summary))",
        ]
    }

    private static func visibleSubcommands(_ command: CommandHelp) -> [CommandHelp] {
        (command.subcommands ?? []).filter { $0.shouldDisplay && $0.commandName != "help" }
    }

    private static func visibleArguments(_ command: CommandHelp) -> [CommandHelp.Argument] {
        (command.arguments ?? []).filter { argument in
            argument.shouldDisplay && !(argument.names ?? []).contains { $0.name == "help" || $0.name == "version" }
        }
    }

    private static func synopsis(_ root: CommandHelp) -> [String] {
        var lines = [".Nm", ".Op Ar command", ".Op Ar options"]
        for command in visibleSubcommands(root) {
            lines += [".Nm", ".Cm \(command.commandName)"]
            let arguments = visibleArguments(command)
            for positional in arguments where positional.kind == "positional" {
                let words = "Ar \(positional.valueName ?? "argument")" + (positional.isRepeating ? " ..." : "")
                lines.append(positional.isOptional ? ".Op \(words)" : ".\(words)")
            }
            if arguments.contains(where: { $0.kind != "positional" }) { lines.append(".Op Ar options") }
        }
        return lines + [".Nm", ".Fl -version"]
    }

    private static func command(_ command: CommandHelp, parent: String?) -> [String] {
        let name = [parent, command.commandName].compactMap { $0 }.joined(separator: " ")
        var lines = [".It Cm \(name)"]
        if let abstract = command.abstract { lines += RoffText.paragraphs(abstract) }
        if let discussion = command.discussion {
            lines += [".Pp"] + RoffText.paragraphs(discussion)
        }
        let arguments = visibleArguments(command)
        if !arguments.isEmpty {
            lines += [".Bl -tag -width Ds"] + arguments.flatMap(argument) + [".El"]
        }
        let subcommands = visibleSubcommands(command)
        if !subcommands.isEmpty {
            lines += [".Bl -tag -width Ds"] + subcommands.flatMap { Self.command($0, parent: name) } + [".El"]
        }
        return lines
    }

    private static func argument(_ argument: CommandHelp.Argument) -> [String] {
        let value = argument.valueName.map { " Ar " + $0.split(separator: " ").joined(separator: " Ar ") } ?? ""
        var head: String
        switch argument.kind {
        case "positional":
            head = ".It Ar \(argument.valueName ?? "argument")" + (argument.isRepeating ? " ..." : "")
        default:
            let names = (argument.names ?? []).sorted { $0.kind == "short" && $1.kind != "short" }
            let flags = names.map { name in name.kind == "long" ? "Fl -\(name.name)" : "Fl \(name.name)" }
            head = ".It " + flags.joined(separator: " , ") + (argument.kind == "option" ? value : "")
        }
        if argument.kind == "option", argument.isRepeating { head += " ..." }
        var lines = [head]
        if let abstract = argument.abstract { lines += RoffText.paragraphs(abstract) }
        if let discussion = argument.discussion, !discussion.isEmpty {
            lines += [".Pp"] + RoffText.paragraphs(discussion)
        }
        return lines
    }

    private static func configuration() -> [String] {
        var lines = ManualSections.configurationIntroduction
        for section in ConfigKeyGuide.sections {
            lines += [".Ss \(RoffText.line(section.title))", ".Bl -tag -width Ds -compact"]
            for key in section.keys {
                lines += [".It Cm \(key.name)"] + RoffText.paragraphs(key.line)
            }
            lines.append(".El")
        }
        return lines + ManualSections.pinForms
    }
}
