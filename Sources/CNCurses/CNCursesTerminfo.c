// The terminfo calls behind CNCurses.h, apart from CNCurses.c: <term.h> defines a macro for
// every capability's name (`columns`, `cursor_address`, ...), which would rename that file's
// variables.
#include "CNCurses.h"

#include <stdio.h>

#if defined(__linux__) && __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#include <ncursesw/term.h>
#define CNC_HAS_TERMINFO 1
#elif __has_include(<curses.h>) && __has_include(<term.h>)
#include <curses.h>
#include <term.h>
#define CNC_HAS_TERMINFO 1
#endif

#if CNC_HAS_TERMINFO

int cnc_terminal_addresses_cursor(const char *type) {
    TERMINAL *before = cur_term;
    int status = 0;
    // With a place for the status, setupterm reads the entry and writes nothing.
    if (setupterm((char *)type, fileno(stdout), &status) != OK) {
        // A failure may have set another terminal current, or none.
        set_curterm(before);
        // 1: a hardcopy terminal, which is known and cannot move a cursor.
        return status == 1 ? 0 : -1;
    }
    char *cup = tigetstr("cup");
    int addresses = cup != NULL && cup != (char *)-1;
    TERMINAL *loaded = set_curterm(before);
    if (loaded != NULL && loaded != before) {
        del_curterm(loaded);
    }
    return addresses;
}

#elif __has_include(<curses.h>)

// curses without terminfo's header: newterm's own answer (cnc_can_address_cursor) decides.
int cnc_terminal_addresses_cursor(const char *type) {
    (void)type;
    return 1;
}

#endif
