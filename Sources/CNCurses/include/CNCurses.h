#ifndef PINWATCH_CNCURSES_H
#define PINWATCH_CNCURSES_H

// The wide-character API (add_wch, setcchar) is only declared when this is
// defined before curses.h is included.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <langinfo.h>
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <sys/ioctl.h>
#include <unistd.h>

// MARK: Macro wrappers
// These are macros (or macro-like globals) the Swift importer cannot see.

/// COLOR_PAIR is a macro.
static inline int pinwatch_COLOR_PAIR(int pair) { return (int)COLOR_PAIR(pair); }

/// getmaxyx is a macro that assigns to its arguments.
static inline void pinwatch_getmaxyx(WINDOW *window, int *rows, int *cols) {
    int y, x;
    getmaxyx(window, y, x);
    *rows = y;
    *cols = x;
}

/// The mouse events the dashboard asks for: a left press (a click selects
/// at once, without waiting for a release) and the wheel, which xterm-style
/// terminals report as buttons 4 and 5. The masks are macros.
static inline mmask_t pinwatch_mouse_events(void) {
    return BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED;
}

/// Reads the pending mouse event: 1 a left press or click, 4 wheel up,
/// 5 wheel down, 0 anything else; the screen row in *row.
static inline int pinwatch_read_mouse(int *row) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *row = event.y;
    if (event.bstate & BUTTON4_PRESSED) return 4;
    if (event.bstate & BUTTON5_PRESSED) return 5;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    return 0;
}

/// The library's variables: stdscr is a macro over a function in some
/// ncurses builds, and the others may be too.
static inline WINDOW *pinwatch_stdscr(void) { return stdscr; }
static inline int pinwatch_COLORS(void) { return COLORS; }
static inline int pinwatch_COLOR_PAIRS(void) { return COLOR_PAIRS; }

/// The attribute constants are macros built from NCURSES_BITS.
static inline attr_t pinwatch_A_BOLD(void) { return A_BOLD; }
static inline attr_t pinwatch_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t pinwatch_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t pinwatch_A_NORMAL(void) { return A_NORMAL; }

/// CODESET is a macro in some C libraries and an enum constant in others.
static inline const char *pinwatch_locale_codeset(void) { return nl_langinfo(CODESET); }

/// TIOCGWINSZ is a macro and ioctl is variadic, which Swift cannot call.
/// Returns 0 and the size of the terminal on `fd`, or -1.
static inline int pinwatch_terminal_size(int fd, int *rows, int *cols) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) return -1;
    *rows = size.ws_row;
    *cols = size.ws_col;
    return 0;
}

// term.h last: it defines a macro for every capability name (`lines`,
// `bell`, `columns`…), which would rewrite any code after it that used them.
#include <ncursesw/term.h>

/// Whether terminfo's entry for `term` can move the cursor anywhere
/// (`cup`): 1 yes, 0 no (TERM=dumb, a printing terminal), -1 no entry.
/// The entry is loaded and freed here, before any screen exists.
static inline int pinwatch_terminal_addresses_cursor(const char *term) {
    int status = 0;
    if (setupterm(term, -1, &status) != OK) return -1;
    TERMINAL *loaded = cur_term;
    const char *cup_string = tigetstr("cup");
    int addressable = cup_string != NULL && cup_string != (const char *)-1;
    del_curterm(loaded);
    return addressable;
}

#endif
