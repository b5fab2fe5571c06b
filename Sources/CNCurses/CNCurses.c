// The curses calls behind CNCurses.h. This file, unlike the header, sees the target's
// _XOPEN_SOURCE_EXTENDED (cSettings in Package.swift), which turns on curses's wide-character
// API; on Darwin the define reaches the SDK's curses module because it is on the command line.
#include "CNCurses.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

// Linux's ncurses with wide characters is ncursesw; macOS's own <curses.h> is wide-capable
// under the define (Homebrew's keg-only ncurses is used instead when its include folder comes
// first: README, "busmon on a Mac"). Platforms with neither (iOS and the rest of Apple's
// family) build this target empty: nothing there depends on it.
#if defined(__linux__) && __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#define CNC_HAS_CURSES 1
#elif __has_include(<curses.h>)
#include <curses.h>
#define CNC_HAS_CURSES 1
#endif

#if CNC_HAS_CURSES

// Codes of our own for the paste markers: the first two above KEY_MAX that no key of the
// terminal has. Curses numbers a terminal's extra keys from KEY_MAX up (macOS's xterm-256color
// has kDC3 to kDC7 there: KEY_MAX + 1 is Shift-Alt-Delete), so fixed codes could be a key's.
// Set by cnc_enter_dashboard_mode; 0 (no key) until then.
static int cnc_code_paste_start = 0;
static int cnc_code_paste_end = 0;

// The first key code from `code` up that no key of the terminal has.
static int cnc_unused_key_code(int code) {
    while (has_key(code)) code++;
    return code;
}

// A capability of the terminal's terminfo entry by name, or NULL when it has none. The
// extended ones (BE, PS) are in the xterm and tmux entries from ncurses 6.3-20221224 (6.4) on;
// older databases, macOS's among them, have none, and the xterm sequences are used.
static const char *cnc_capability(const char *name) {
    const char *value = tigetstr((char *)name);
    return value == NULL || value == (char *)-1 ? NULL : value;
}

// Turns bracketed paste on or off: xterm's private mode 2004, which terminals that lack it
// ignore. Written straight to stdout, flushed, before curses writes anything more.
static void cnc_bracketed_paste(bool on) {
    const char *sequence = cnc_capability(on ? "BE" : "BD");
    if (sequence == NULL) sequence = on ? "\033[?2004h" : "\033[?2004l";
    fputs(sequence, stdout);
    fflush(stdout);
}

// Ctrl-Z: curses' own SIGTSTP handler ends the screen, stops the process and draws the screen
// again after `fg`, but knows nothing of bracketed paste, which stayed on for the shell: a shell
// that does not ask for it itself (dash, a plain sh) then read every paste wrapped in ESC[200~
// and ESC[201~. This handler turns it off around curses' and on again after. The sequences are
// found before it is installed, and written with write(2), which a signal handler may call.
static const char *cnc_paste_off = NULL;
static const char *cnc_paste_on = NULL;
static struct sigaction cnc_curses_tstp;
static bool cnc_tstp_wrapped = false;

static void cnc_write_all(const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t written = write(STDOUT_FILENO, text, left);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        text += written;
        left -= (size_t)written;
    }
}

static void cnc_suspend(int signal_number, siginfo_t *info, void *context) {
    int saved_errno = errno;
    cnc_write_all(cnc_paste_off);
    if (cnc_curses_tstp.sa_flags & SA_SIGINFO) {
        cnc_curses_tstp.sa_sigaction(signal_number, info, context);
    } else if (cnc_curses_tstp.sa_handler != SIG_DFL && cnc_curses_tstp.sa_handler != SIG_IGN) {
        cnc_curses_tstp.sa_handler(signal_number);
    }
    // Back from `fg`: curses has drawn the screen again.
    cnc_write_all(cnc_paste_on);
    errno = saved_errno;
}

// Puts cnc_suspend in front of curses' SIGTSTP handler, when curses installed one (it does
// only where the signal's disposition was the default: a shell without job control ignores it).
static void cnc_wrap_suspend(void) {
    if (cnc_tstp_wrapped) return;
    struct sigaction current;
    if (sigaction(SIGTSTP, NULL, &current) != 0) return;
    bool has_handler = (current.sa_flags & SA_SIGINFO) != 0
        || (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
    if (!has_handler) return;
    cnc_paste_off = cnc_capability("BD");
    if (cnc_paste_off == NULL) cnc_paste_off = "\033[?2004l";
    cnc_paste_on = cnc_capability("BE");
    if (cnc_paste_on == NULL) cnc_paste_on = "\033[?2004h";
    cnc_curses_tstp = current;
    struct sigaction wrapper;
    memset(&wrapper, 0, sizeof wrapper);
    wrapper.sa_sigaction = cnc_suspend;
    wrapper.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART);
    sigemptyset(&wrapper.sa_mask);
    if (sigaction(SIGTSTP, &wrapper, NULL) == 0) cnc_tstp_wrapped = true;
}

// Gives curses' handler back its place, before the screen ends.
static void cnc_unwrap_suspend(void) {
    if (!cnc_tstp_wrapped) return;
    sigaction(SIGTSTP, &cnc_curses_tstp, NULL);
    cnc_tstp_wrapped = false;
}

// glibc's <wchar.h> declares wcwidth only for _XOPEN_SOURCE, which would hide other calls;
// Darwin's declares it the same way, so declaring it again is harmless there.
int wcwidth(wchar_t character);

cnc_screen *cnc_newterm_stdio(const char *type) {
    return (cnc_screen *)newterm(type, stdout, stdin);
}

void cnc_end(cnc_screen *screen) {
    cnc_unwrap_suspend();
    wclear(stdscr);
    wrefresh(stdscr);
    curs_set(1);
    endwin();
    cnc_bracketed_paste(false);
    if (screen != NULL) {
        delscreen((SCREEN *)screen);
    }
}

bool cnc_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}

void cnc_enter_dashboard_mode(bool keys_as_data) {
    if (keys_as_data) {
        raw();
    } else {
        cbreak();
    }
    noecho();
    // Ctrl-S must not stop the screen. With XON/XOFF flow control on (cbreak leaves it on),
    // the terminal held busmon's next write until Ctrl-Q, and busmon could not even quit on
    // SIGTERM, whose way out writes the restored screen. Off while busmon runs, as raw mode
    // has it, and saved as curses's program mode, which it restores after Ctrl-Z; endwin puts
    // the shell's setting back. Ctrl-S is then a key, which the dashboard ignores.
    struct termios modes;
    if (tcgetattr(fileno(stdout), &modes) == 0 && (modes.c_iflag & IXON)) {
        modes.c_iflag &= ~(tcflag_t)IXON;
        if (tcsetattr(fileno(stdout), TCSANOW, &modes) == 0) def_prog_mode();
    }
    keypad(stdscr, TRUE);
    // Home and End as terminals other than the one TERM names send them: tmux or PuTTY under
    // an xterm TERM send ESC[1~ and ESC[4~, rxvt ESC[7~ and ESC[8~. Curses knows only the
    // terminfo's sequences, and the others arrived as Esc and three characters.
    static const char *const homes[] = {"\033[1~", "\033[7~", "\033[H", "\033OH"};
    static const char *const ends[] = {"\033[4~", "\033[8~", "\033[F", "\033OF"};
    for (size_t index = 0; index < sizeof homes / sizeof homes[0]; index++) {
        if (key_defined(homes[index]) == 0) define_key(homes[index], KEY_HOME);
        if (key_defined(ends[index]) == 0) define_key(ends[index], KEY_END);
    }
    // A paste arrives between two markers, so that the dashboard takes it as text: pasted
    // into the filter, an Esc or a letter in it would otherwise close the prompt and run as keys
    // (c destroys screens, q quits). Curses reports the markers as keys of our own.
    const char *paste_start = cnc_capability("PS");
    const char *paste_end = cnc_capability("PE");
    cnc_code_paste_start = cnc_unused_key_code(KEY_MAX + 1);
    cnc_code_paste_end = cnc_unused_key_code(cnc_code_paste_start + 1);
    define_key(paste_start != NULL ? paste_start : "\033[200~", cnc_code_paste_start);
    define_key(paste_end != NULL ? paste_end : "\033[201~", cnc_code_paste_end);
    cnc_bracketed_paste(true);
    cnc_wrap_suspend();
    curs_set(0);
    set_escdelay(25);
    // No look at the keyboard in the middle of a refresh: curses would poll stdin and flush
    // its output every few lines (a write of a few bytes each time, over a thousand a second
    // at 25 frames), to give up a frame a key may change. A frame here is drawn whole, and
    // the key is read right after it.
    typeahead(-1);
}

void cnc_buffer_output(void) {
    endwin();
    wrefresh(stdscr);
}

bool cnc_start_colors(int pairs_needed, bool *default_background) {
    *default_background = false;
    if (!has_colors() || start_color() != OK || COLOR_PAIRS <= pairs_needed) {
        return false;
    }
    *default_background = use_default_colors() == OK;
    return true;
}

int cnc_init_pair(short pair, short foreground, short background) {
    return init_pair(pair, foreground, background);
}

void cnc_screen_size(int *rows, int *columns) {
    int y, x;
    getmaxyx(stdscr, y, x);
    *rows = y;
    *columns = x;
}

void cnc_timeout(int milliseconds) { wtimeout(stdscr, milliseconds); }

static uint32_t cnc_function_key(int code) {
    if (code == cnc_code_paste_start) return CNC_KEY_PASTE_START;
    if (code == cnc_code_paste_end) return CNC_KEY_PASTE_END;
    switch (code) {
    case KEY_UP: return CNC_KEY_UP;
    case KEY_DOWN: return CNC_KEY_DOWN;
    case KEY_LEFT: return CNC_KEY_LEFT;
    case KEY_RIGHT: return CNC_KEY_RIGHT;
    case KEY_PPAGE: return CNC_KEY_PAGE_UP;
    case KEY_NPAGE: return CNC_KEY_PAGE_DOWN;
    case KEY_HOME: return CNC_KEY_HOME;
    case KEY_END: return CNC_KEY_END;
    case KEY_ENTER: return CNC_KEY_ENTER;
    case KEY_BACKSPACE: return CNC_KEY_BACKSPACE;
    case KEY_DC: return CNC_KEY_DELETE;
    case KEY_RESIZE: return CNC_KEY_RESIZE;
    case KEY_BTAB: return CNC_KEY_BACK_TAB;
    default: return code == KEY_F(1) ? CNC_KEY_F1 : CNC_KEY_OTHER;
    }
}

int cnc_read_key(uint32_t *value) {
    // wint_t is unsigned on Linux and signed on Darwin; both hold every code unchanged.
    wint_t key = 0;
    switch (wget_wch(stdscr, &key)) {
    case OK:
        *value = (uint32_t)key;
        return CNC_READ_CHARACTER;
    case KEY_CODE_YES:
        *value = cnc_function_key((int)key);
        return CNC_READ_FUNCTION_KEY;
    default:
        return CNC_READ_NOTHING;
    }
}

int cnc_erase(void) { return werase(stdscr); }

int cnc_refresh(void) { return wrefresh(stdscr); }

int cnc_put_cell(int y, int x, uint32_t character, uint32_t style, short pair) {
    attr_t attributes = A_NORMAL;
    if (style & CNC_STYLE_BOLD) attributes |= A_BOLD;
    if (style & CNC_STYLE_REVERSE) attributes |= A_REVERSE;
    if (style & CNC_STYLE_DIM) attributes |= A_DIM;
    // wchar_t is signed on x86_64 Linux and Darwin, unsigned on aarch64 Linux: a C conversion
    // is right on each, where Swift would need a different initializer per platform.
    wchar_t text[2] = {(wchar_t)character, L'\0'};
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) == ERR) {
        return ERR;
    }
    return mvwadd_wch(stdscr, y, x, &cell);
}

int cnc_character_width(uint32_t character) { return wcwidth((wchar_t)character); }

const char *cnc_codeset(void) { return nl_langinfo(CODESET); }

#endif
