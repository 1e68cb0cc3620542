/* `check --html` (html.h): Graphviz when installed, our layout otherwise,
 * and the page. Graphviz runs as a child process on a temporary DOT file;
 * any failure (not installed, a crash, a non-zero exit, output without an
 * <svg> element) falls back to psi_render_svg, so the report never depends
 * on it. */
#include "cli/html.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Larger counterexamples are drawn by our layout: dot takes long on big
 * graphs, and such a drawing is read for its shape only. */
#define DOT_MAX_TXNS 200u

/* Reads fd to its end into a malloc'd string; NULL on failure. */
static char *read_all(int fd)
{
    size_t n = 0, cap = 1 << 14;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *more = realloc(buf, cap * 2);
            if (!more)
                break;
            buf = more;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + n, cap - n - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        if (k == 0) {
            buf[n] = '\0';
            return buf;
        }
        n += (size_t)k;
    }
    free(buf);
    return NULL;
}

/* `dot -Tsvg` of the counterexample's DOT, from its <svg> element on (the
 * XML prolog and doctype do not belong inside HTML); NULL when Graphviz is
 * not there or fails. */
static char *dot_svg(const psi_history *h, const psi_cex *cx, const psi_render_opts *o)
{
    if (cx->n_txns > DOT_MAX_TXNS)
        return NULL;
    const char *prog = getenv("POLYSI_DOT");
    if (!prog || !*prog)
        prog = "dot";
    const char *tmpdir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/polysi-cex-XXXXXX.dot", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int tfd = mkstemps(path, 4);
    if (tfd < 0)
        return NULL;
    FILE *f = fdopen(tfd, "w");
    psi_render_opts bare = *o;
    bare.dot_bare = true;
    bool ok = f && psi_render_dot(h, cx, &bare, f);
    if (f)
        ok = fclose(f) == 0 && ok;
    else
        close(tfd);
    char *out = NULL;
    int p[2] = {-1, -1};
    if (ok && pipe(p) == 0) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&fa, p[0]);
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        char *argv[] = {(char *)prog, (char *)"-Tsvg", path, NULL};
        pid_t pid;
        int rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(p[1]);
        if (rc == 0) {
            char *all = read_all(p[0]);
            int status = 0;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            const char *svg = all ? strstr(all, "<svg") : NULL;
            if (svg && WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(svg, "</svg>"))
                out = strdup(svg);
            free(all);
        }
        close(p[0]);
    }
    unlink(path);
    return out;
}

char *psi_html_reject_fragment(const psi_history *h, const psi_check_result *res, const psi_cex *cx,
                               const psi_render_opts *o, const char *id)
{
    char *svg = cx->present ? dot_svg(h, cx, o) : NULL;
    char *frag = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&frag, &len);
    bool ok = m && psi_render_html_cex(h, res, cx, o, svg, id, m);
    if (m)
        ok = fclose(m) == 0 && ok;
    free(svg);
    if (!ok) {
        free(frag);
        return NULL;
    }
    return frag;
}

bool psi_html_write_page(const psi_html_entry *e, size_t n, FILE *out)
{
    char when[64] = "", note[160];
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    snprintf(note, sizeof note, "written by polysi-solve %s, %s", PSI_VERSION, when);
    return psi_render_html_page(e, n, note, out);
}
