// The parts of ncurses (ncursesw on Linux) that Swift needs, in a form Swift can import.
//
// SwiftPM drops the -D flags pkg-config gives for ncursesw, and without them curses.h hides the
// wide-character API (cchar_t, setcchar, wget_wch), so the define comes first here. Macros and
// mutable C globals do not import into Swift 6, so they are wrapped in small inline functions.
#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#if defined(__APPLE__)
// macOS's own ncurses is wide-capable under _XOPEN_SOURCE_EXTENDED and lives at <curses.h>;
// Homebrew's keg-only ncurses is picked up instead when its include folder is passed first
// (README, "busmon on a Mac").
#include <curses.h>
#else
#include <ncursesw/curses.h>
#endif

/// Starts curses on the process's stdout and stdin for the terminal type `type` (NULL: $TERM).
/// Returns NULL, without exiting, when the terminal type is unknown.
static inline SCREEN *cnc_newterm_stdio(const char *type) {
    return newterm(type, stdout, stdin);
}

/// Whether the current terminal can move its cursor anywhere (has "cup"); "dumb" cannot.
static inline bool cnc_can_address_cursor(void) {
    char *cursor_address = tigetstr("cup");
    return cursor_address != NULL && cursor_address != (char *)-1;
}

/// The rows of the standard screen.
static inline int cnc_lines(void) { return LINES; }

/// The columns of the standard screen.
static inline int cnc_cols(void) { return COLS; }

/// How many colours the terminal has, after start_color().
static inline int cnc_colors(void) { return COLORS; }

/// How many colour pairs the terminal has, after start_color().
static inline int cnc_color_pairs(void) { return COLOR_PAIRS; }

/// The current size of the standard screen.
static inline void cnc_screen_size(int *rows, int *columns) {
    int y, x;
    getmaxyx(stdscr, y, x);
    *rows = y;
    *columns = x;
}

static inline attr_t cnc_attr_normal(void) { return A_NORMAL; }
static inline attr_t cnc_attr_bold(void) { return A_BOLD; }
static inline attr_t cnc_attr_reverse(void) { return A_REVERSE; }
static inline attr_t cnc_attr_dim(void) { return A_DIM; }

/// Turns keypad decoding (arrows, function keys) on or off for the standard screen.
static inline int cnc_keypad(bool enabled) { return keypad(stdscr, enabled); }

/// Sets how long reading a key waits, in milliseconds; negative waits forever.
static inline void cnc_timeout(int milliseconds) { wtimeout(stdscr, milliseconds); }

/// Reads one key: returns OK with a character, KEY_CODE_YES with a KEY_* code, or ERR.
static inline int cnc_get_wch(wint_t *key) { return wget_wch(stdscr, key); }

/// Blanks the standard screen without forcing a full repaint (no flicker, unlike clear()).
static inline int cnc_erase(void) { return werase(stdscr); }

/// Sends the changes of the standard screen to the terminal.
static inline int cnc_refresh(void) { return wrefresh(stdscr); }

// Clears stdscr and the terminal at the next refresh (clear is a macro-free function, but
// stdscr is a global Swift 6 cannot read safely).
static inline int cnc_clear(void) { return wclear(stdscr); }

/// Writes one character cell at row `y`, column `x` with attributes and a colour pair.
/// Writing the bottom-right cell returns ERR (the cursor cannot move past it) but the cell is
/// drawn, so callers may ignore the result.
static inline int cnc_put_cell(int y, int x, wchar_t character, attr_t attributes, short pair) {
    wchar_t text[2] = {character, L'\0'};
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) == ERR) {
        return ERR;
    }
    return mvwadd_wch(stdscr, y, x, &cell);
}

/// The colour constants, which are macros.
static inline short cnc_color_red(void) { return COLOR_RED; }
static inline short cnc_color_green(void) { return COLOR_GREEN; }
static inline short cnc_color_yellow(void) { return COLOR_YELLOW; }
static inline short cnc_color_blue(void) { return COLOR_BLUE; }
static inline short cnc_color_magenta(void) { return COLOR_MAGENTA; }
static inline short cnc_color_cyan(void) { return COLOR_CYAN; }
static inline short cnc_color_white(void) { return COLOR_WHITE; }
static inline short cnc_color_black(void) { return COLOR_BLACK; }

/// The key code of function key `n` (KEY_F is a macro).
static inline int cnc_key_f(int n) { return KEY_F(n); }

// <wchar.h> declares wcwidth only for _XOPEN_SOURCE, which Swift's C library module lacks.
int wcwidth(wchar_t character);

/// How many columns `character` takes in the current locale: 1, 2 (wide), 0 or -1 (not printable).
static inline int cnc_wcwidth(wchar_t character) { return wcwidth(character); }

/// The name of the locale's character encoding, such as "UTF-8" or "ANSI_X3.4-1968".
static inline const char *cnc_codeset(void) { return nl_langinfo(CODESET); }

#endif
