/* Where the tests find the shared corpus of real histories
 * (../shared/corpus, see its README), and how they say it is absent.
 *
 * The folder is $PSI_CORPUS when that is set at run time (so
 * `PSI_CORPUS=/elsewhere ctest` works), else the one CMake configured
 * (PSI_TEST_CORPUS, tests/CMakeLists.txt). Every test reads it through
 * these functions, never through getenv directly (tests/layout checks).
 *
 * Absent is not passed: a program whose cases need the corpus calls
 * psi_corpus_or_skip() in main, before running them; when the folder is
 * missing it prints a loud SKIPPED line and exits PSI_TEST_SKIP, which
 * CTest reports as "Skipped" (the SKIP_RETURN_CODE property psi_test sets
 * for CORPUS tests). Present but incomplete is a failure: once the folder
 * exists, a file a test expects must be there, and the tests assert it. */
#ifndef PSI_TESTS_SUPPORT_CORPUS_H
#define PSI_TESTS_SUPPORT_CORPUS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The exit code CTest maps to "Skipped" (the Automake convention). */
#define PSI_TEST_SKIP 77

/* Where the corpus should be: $PSI_CORPUS, else the configured folder;
 * NULL when neither is set. */
static inline const char *psi_corpus_where(void)
{
    const char *c = getenv("PSI_CORPUS");
#ifdef PSI_TEST_CORPUS
    if (!c || !*c)
        c = PSI_TEST_CORPUS;
#endif
    return c && *c ? c : NULL;
}

/* The corpus folder, or NULL when it does not exist. */
static inline const char *psi_corpus(void)
{
    const char *c = psi_corpus_where();
    struct stat sb;
    if (!c || stat(c, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return NULL;
    return c;
}

/* The corpus folder; when it is absent, says so and exits PSI_TEST_SKIP.
 * `what` names the cases that are skipped. */
static inline const char *psi_corpus_or_skip(const char *what)
{
    const char *c = psi_corpus();
    if (c)
        return c;
    const char *where = psi_corpus_where();
    fprintf(stderr,
            "\n*** SKIPPED: %s: corpus not found at %s ***\n"
            "*** (set PSI_CORPUS to the shared corpus directory, ../shared/corpus) ***\n\n",
            what, where ? where : "(PSI_CORPUS unset)");
    exit(PSI_TEST_SKIP);
}

#endif
