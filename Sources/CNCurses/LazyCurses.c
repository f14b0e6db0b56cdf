// The curses functions pinwatch calls, forwarded to the system's ncursesw
// (and the tinfo it loads) opened on first use (CLazyLibrary.h says how
// and why), and the library variables the header's wrappers read.
#include "CNCurses.h"

#include <CLazyLibrary.h>

// A macro over wmove and wadd_wch in C; Swift, which cannot see macros,
// calls the library's function of that name.
#undef mvwadd_wch

// X(return type, name, (parameters), (arguments))
#define CURSES_FUNCTIONS(X)                                                                             \
    X(SCREEN *, newterm, (const char *type, FILE *output, FILE *input), (type, output, input))          \
    X(SCREEN *, set_term, (SCREEN * screen), (screen))                                                  \
    X(void, delscreen, (SCREEN * screen), (screen))                                                     \
    X(int, endwin, (void), ())                                                                          \
    X(int, cbreak, (void), ())                                                                          \
    X(int, noecho, (void), ())                                                                          \
    X(int, nonl, (void), ())                                                                            \
    X(int, keypad, (WINDOW * window, bool on), (window, on))                                            \
    X(int, nodelay, (WINDOW * window, bool on), (window, on))                                           \
    X(int, set_escdelay, (int milliseconds), (milliseconds))                                            \
    X(int, curs_set, (int visibility), (visibility))                                                    \
    X(mmask_t, mousemask, (mmask_t events, mmask_t * old), (events, old))                               \
    X(int, mouseinterval, (int milliseconds), (milliseconds))                                           \
    X(int, getmouse, (MEVENT * event), (event))                                                         \
    X(bool, has_colors, (void), ())                                                                     \
    X(int, start_color, (void), ())                                                                     \
    X(int, use_default_colors, (void), ())                                                              \
    X(int, init_pair, (NCURSES_PAIRS_T pair, NCURSES_COLOR_T fg, NCURSES_COLOR_T bg), (pair, fg, bg))   \
    X(int, werase, (WINDOW * window), (window))                                                         \
    X(int, setcchar,                                                                                    \
      (cchar_t * cell, const wchar_t *text, const attr_t attributes, NCURSES_PAIRS_T pair,              \
       const void *options),                                                                            \
      (cell, text, attributes, pair, options))                                                          \
    X(int, mvwadd_wch, (WINDOW * window, int row, int column, const cchar_t *cell),                     \
      (window, row, column, cell))                                                                      \
    X(int, wnoutrefresh, (WINDOW * window), (window))                                                   \
    X(int, doupdate, (void), ())                                                                        \
    X(int, wget_wch, (WINDOW * window, wint_t * input), (window, input))                                \
    X(int, resizeterm, (int rows, int columns), (rows, columns))                                        \
    X(int, clearok, (WINDOW * window, bool on), (window, on))                                           \
    X(int, beep, (void), ())

// The variables, as X(type, name, , ): dlsym gives their addresses, and an
// empty parameter list makes the table's field a plain pointer to them.
#define CURSES_VARIABLES(X) X(WINDOW *, stdscr, , ) X(int, COLORS, , ) X(int, COLOR_PAIRS, , )
#define CURSES_SYMBOLS(X) CURSES_FUNCTIONS(X) CURSES_VARIABLES(X)

PINWATCH_LAZY_LIBRARY(curses, "libncursesw.so.6", "libncursesw6", CURSES_SYMBOLS)

const char *pinwatch_curses_load(void) { return pinwatch_lazy_load(&curses); }

#define FORWARD(...) PINWATCH_LAZY_FORWARD(curses, __VA_ARGS__)
CURSES_FUNCTIONS(FORWARD)

WINDOW *pinwatch_stdscr(void) {
    pinwatch_lazy_require(&curses);
    return *cursesTable.call.stdscr;
}

int pinwatch_COLORS(void) {
    pinwatch_lazy_require(&curses);
    return *cursesTable.call.COLORS;
}

int pinwatch_COLOR_PAIRS(void) {
    pinwatch_lazy_require(&curses);
    return *cursesTable.call.COLOR_PAIRS;
}
