// The parts of ncurses that busmon's terminal needs, in plain C types only.
//
// Swift imports C through Clang modules, and on Darwin <curses.h> is a module of its own
// (the SDK's ncurses) that is built with the command line's macros alone: a define written
// in this header before including curses.h would never reach it, and the wide-character API
// (cchar_t, setcchar, wget_wch) would stay hidden. So this header includes no curses header
// and names no curses type. The calls are made in CNCurses.c, which the target compiles with
// _XOPEN_SOURCE_EXTENDED in its cSettings; that reaches the curses module it imports.
#ifndef CNCURSES_H
#define CNCURSES_H

#include <stdbool.h>
#include <stdint.h>

/// A curses screen, opaque to callers.
typedef struct cnc_screen cnc_screen;

/// What one read of the keyboard gave (the result of cnc_read_key).
#define CNC_READ_NOTHING 0
#define CNC_READ_CHARACTER 1
#define CNC_READ_FUNCTION_KEY 2

/// The function keys the dashboard tells apart; every other one is CNC_KEY_OTHER.
#define CNC_KEY_OTHER 0
#define CNC_KEY_UP 1
#define CNC_KEY_DOWN 2
#define CNC_KEY_LEFT 3
#define CNC_KEY_RIGHT 4
#define CNC_KEY_PAGE_UP 5
#define CNC_KEY_PAGE_DOWN 6
#define CNC_KEY_HOME 7
#define CNC_KEY_END 8
#define CNC_KEY_ENTER 9
#define CNC_KEY_BACKSPACE 10
#define CNC_KEY_DELETE 11
#define CNC_KEY_F1 12
#define CNC_KEY_RESIZE 13
#define CNC_KEY_BACK_TAB 14
/// The markers a terminal sends around pasted text, once cnc_enter_dashboard_mode asked for
/// them (bracketed paste): what comes between them is text, not keys.
#define CNC_KEY_PASTE_START 15
#define CNC_KEY_PASTE_END 16

/// Cell styles for cnc_put_cell, combined with |.
#define CNC_STYLE_BOLD 1u
#define CNC_STYLE_REVERSE 2u
#define CNC_STYLE_DIM 4u

/// The eight colours of curses, for cnc_init_pair.
#define CNC_COLOR_BLACK 0
#define CNC_COLOR_RED 1
#define CNC_COLOR_GREEN 2
#define CNC_COLOR_YELLOW 3
#define CNC_COLOR_BLUE 4
#define CNC_COLOR_MAGENTA 5
#define CNC_COLOR_CYAN 6
#define CNC_COLOR_WHITE 7
/// The terminal's own colour, where cnc_start_colors said it may be used.
#define CNC_COLOR_DEFAULT (-1)

/// Starts curses on the process's stdout and stdin for the terminal type `type` (NULL: $TERM).
/// Returns NULL, without exiting, when the terminal type is unknown.
cnc_screen *cnc_newterm_stdio(const char *type);

/// Leaves curses: blanks the screen, shows the cursor, restores the terminal's modes and frees
/// `screen`. Blanking first leaves nothing for a terminal multiplexer to bring back after a resize.
void cnc_end(cnc_screen *screen);

/// Whether the current terminal can move its cursor anywhere (has "cup"); "dumb" cannot.
bool cnc_can_address_cursor(void);

/// Whether the terminal type `type` can move its cursor anywhere: 1 yes, 0 no, -1 for a type
/// the terminfo database does not know. Reads the entry without starting curses, which would
/// blank a screenful first; the current terminal, if any, stays current.
int cnc_terminal_addresses_cursor(const char *type);

/// Keys unbuffered, no echo, keypad decoding on, cursor hidden, and a short wait after Esc for
/// the rest of an escape sequence. With `keys_as_data`, Ctrl-C, Ctrl-\ and Ctrl-Z arrive as
/// keys (raw mode) instead of raising signals, for a terminal that is not the process's
/// controlling terminal, where those signals would reach nobody.
void cnc_enter_dashboard_mode(bool keys_as_data);

/// Lets curses gather a refresh's output into few writes. Until the screen has been suspended
/// and resumed once (endwin, then a refresh), ncurses takes the program for a low-level
/// terminfo user and writes out every cursor movement at once: over a thousand writes of a few
/// bytes a second at 25 frames. Suspending and resuming at the start ends that; curses without
/// that behaviour (macOS's own) only redraws the blank screen.
void cnc_buffer_output(void);

/// Starts colours when the terminal has them and at least `pairs_needed` pairs besides pair 0.
/// Returns whether colours are on; `*default_background` then says whether CNC_COLOR_DEFAULT
/// may be used as a background.
bool cnc_start_colors(int pairs_needed, bool *default_background);

/// Defines colour pair `pair` as `foreground` on `background` (CNC_COLOR_*).
int cnc_init_pair(short pair, short foreground, short background);

/// The current size of the standard screen.
void cnc_screen_size(int *rows, int *columns);

/// Sets how long cnc_read_key waits, in milliseconds; negative waits forever.
void cnc_timeout(int milliseconds);

/// Reads one key. Returns CNC_READ_CHARACTER with the character's code in `*value`,
/// CNC_READ_FUNCTION_KEY with a CNC_KEY_* code in `*value`, or CNC_READ_NOTHING.
int cnc_read_key(uint32_t *value);

/// Blanks the standard screen without forcing a full repaint (no flicker, unlike clear()).
int cnc_erase(void);

/// Sends the changes of the standard screen to the terminal.
int cnc_refresh(void);

/// Writes the character `character` (a Unicode scalar) at row `y`, column `x`, with
/// CNC_STYLE_* flags and colour pair `pair`. Writing the bottom-right cell returns an error (the
/// cursor cannot move past it) but the cell is drawn, so callers may ignore the result.
int cnc_put_cell(int y, int x, uint32_t character, uint32_t style, short pair);

/// How many columns the Unicode scalar `character` takes in the current locale: 1, 2 (wide),
/// 0, or -1 (not printable).
int cnc_character_width(uint32_t character);

/// The name of the locale's character encoding, such as "UTF-8" or "ANSI_X3.4-1968".
const char *cnc_codeset(void);

#endif
