// The declaration in include/CFuzzerDriver.h is all this module provides; libFuzzer defines
// the function.
#include "CFuzzerDriver.h"
