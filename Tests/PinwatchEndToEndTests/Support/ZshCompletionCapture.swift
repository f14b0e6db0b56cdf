import Foundation

/// zsh completes only inside its line editor, on a terminal: `capture`
/// starts an interactive zsh on a pseudo-terminal (zsh/zpty), types the
/// words and a Tab, and `inner`, sourced there, records every candidate the
/// completion system offers through `compadd` (the one way a candidate
/// reaches the menu) in `$CAPTURE_OUT`, then `__DONE__`.
enum ZshCompletionCapture {
    static let inner = """
        bindkey -e
        PS1=''
        fpath=($CAPTURE_FPATH $fpath)
        autoload -Uz compinit
        compinit -u -D
        compadd() {
          # -O, -A and -D only filter or collect for the caller: nothing is offered.
          if (( ${@[(I)-[OAD]]} )); then
            builtin compadd "$@"
            return
          fi
          local -a offered
          builtin compadd -A offered "$@"
          print -rl -- $offered >>$CAPTURE_OUT
          builtin compadd "$@"
        }
        capture_done() { print -r -- __DONE__ >>$CAPTURE_OUT; }
        comppostfuncs=(capture_done)
        print -r -- __READY__

        """

    /// `zsh -f capture INNER WORDS...`; exits 0 once the completion ran.
    static let capture = """
        zmodload zsh/zpty zsh/zselect || exit 3
        inner=$1
        shift
        : >| $CAPTURE_OUT
        zpty -b shell zsh -f -i
        zpty -w shell "source ${(q)inner}"
        # Typed before the line editor is ready, the words would be thrown away.
        zpty -r shell chunk '*__READY__*' || exit 4
        zpty -w -n shell "$*"$'\\t'
        for attempt in {1..400}; do
          grep -qx __DONE__ $CAPTURE_OUT && break
          zselect -t 5
        done
        zpty -d shell
        grep -qx __DONE__ $CAPTURE_OUT

        """
}
