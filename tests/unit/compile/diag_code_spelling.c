/* Compiled, not run (tests/CMakeLists.txt): a diagnostic code is an enum
   constant, so a misspelt one (-DMISSPELT) must not compile. */
#include "util/diag.h"

diagnostic *report(diag_engine *d, span sp);

diagnostic *report(diag_engine *d, span sp)
{
#ifdef MISSPELT
    return diag_report(d, sp, DIAG_E0299, "a code that does not exist");
#else
    return diag_report(d, sp, DIAG_E0201, "a code that exists");
#endif
}
